"""TextWorld Express backend: ids (:mod:`.ids`), the env (:mod:`.env`), its JVM (:mod:`.process`),
TWX text reading (:mod:`.text`) and ground-truth facts (:mod:`.facts`)."""
