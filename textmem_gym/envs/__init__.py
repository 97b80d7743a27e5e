"""Environment backends, game generators and the registration of every TextMem id."""
