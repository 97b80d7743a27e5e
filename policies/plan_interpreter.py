"""A restricted interpreter for plans written as code (AdaPlanner's closed-loop plans).

The model's plan is parsed with :mod:`ast` and only a whitelisted subset is ever run; nothing of
the model's text reaches ``exec`` or ``eval``. A plan is a function in AdaPlanner's shape::

    def solution(start_from=1):
        # General plan: take the apple, then eat it.
        if start_from <= 1:
            print("[Step 1] take the apple")
            obs = act("take red apple")
            assert "you take" in obs.lower(), "Error in [Step 1]: could not take the apple."
        if start_from <= 2:
            ...

(a bare list of statements is taken as the function's body). The subset:

* statements: ``x = expr``, ``x += expr``, an expression (a call), ``assert test, "message"``,
  ``if`` / ``elif`` / ``else``, ``for x in range(n)`` or ``for x in <list or string>``
  (at most :data:`MAX_LOOP` rounds), ``while test`` (at most :data:`MAX_LOOP` rounds),
  ``break``, ``continue``, ``pass``, ``return``;
* expressions: string / number / boolean / ``None`` constants, names bound by the plan,
  ``start_from``, f-strings, lists and tuples, ``+``, comparisons (``in``, ``not in``, ``==``,
  ``!=``, ``<``, ``<=``, ``>``, ``>=``), ``and`` / ``or`` / ``not``, subscripts, and calls of
  ``act(command)`` (one game command: yields :class:`Act`), ``ask(question)`` (in-plan
  refinement: yields :class:`Ask`; the answer is a string), ``print(...)`` (a note), ``len``,
  ``str``, ``range`` and the string methods of :data:`STRING_METHODS`.

Anything else (imports, attributes other than those string methods, other names or calls,
lambdas, comprehensions, ...) is rejected by :func:`parse_plan` with :class:`PlanError`, before
any of the plan runs. Running a plan (:func:`run_plan`) is a generator: it yields :class:`Act` and
:class:`Ask` requests and is sent each one's answer (the observation, the model's answer); a
failed ``assert`` raises :class:`PlanAssertion` naming the step it failed in (the innermost
``if start_from <= k`` block); a command the game cannot take, thrown back into the run as
:class:`CommandRefused`, comes out the same way, naming its step. Each run may evaluate at most
:data:`MAX_NODES` expressions.

Example:
    >>> plan = parse_plan('''
    ... def solution(start_from=1):
    ...     if start_from <= 1:
    ...         obs = act("open fridge")
    ...         assert "open" in obs, "Error in [Step 1]: the fridge is still closed."
    ...     if start_from <= 2:
    ...         act("take milk from fridge")
    ... ''')
    >>> run = run_plan(plan)
    >>> next(run)
    Act(command='open fridge')
    >>> run.send("You open the fridge.")
    Act(command='take milk from fridge')
    >>> run = run_plan(plan)
    >>> next(run)
    Act(command='open fridge')
    >>> run.send("It is locked.")
    Traceback (most recent call last):
    ...
    policies.plan_interpreter.PlanAssertion: step 1: Error in [Step 1]: the fridge is still closed.
    >>> parse_plan("import os")
    Traceback (most recent call last):
    ...
    policies.plan_interpreter.PlanError: line 1: Import is not allowed in a plan
"""

from __future__ import annotations

import ast
import json
import operator
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

#: Rounds a loop of the plan may run.
MAX_LOOP = 20
#: Expressions one run of a plan may evaluate (a bound on any plan's work).
MAX_NODES = 20_000
#: Characters a string built by the plan may have.
MAX_STRING = 2_000
#: String methods a plan may call (none mutates or reaches outside the string).
STRING_METHODS = frozenset({"lower", "upper", "strip", "startswith", "endswith", "count", "split", "replace",
                            "find", "join"})
#: Calls the plan may make besides ``act`` and ``ask``.
BUILTINS: dict[str, Callable[..., Any]] = {"len": len, "str": str, "range": range}

_COMPARE: dict[type, Callable[[Any, Any], bool]] = {
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b, ast.Eq: operator.eq, ast.NotEq: operator.ne,
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
}
_STATEMENTS = (ast.Assign, ast.AugAssign, ast.Expr, ast.Assert, ast.If, ast.For, ast.While, ast.Break,
               ast.Continue, ast.Pass, ast.Return)
_EXPRESSIONS = (ast.Constant, ast.Name, ast.JoinedStr, ast.FormattedValue, ast.List, ast.Tuple, ast.BinOp,
                ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Subscript, ast.Call, ast.Attribute, ast.Slice)
_ALLOWED = (*_STATEMENTS, *_EXPRESSIONS, ast.Load, ast.Store, ast.Add, ast.And, ast.Or, ast.Not, ast.USub,
            ast.keyword, *_COMPARE)


class PlanError(ValueError):
    """The plan does not parse, or uses something outside the whitelisted subset."""


class PlanAssertion(Exception):
    """An ``assert`` of the plan failed (the observation was not what the plan expected).

    Attributes:
        step: The step it failed in (the innermost ``if start_from <= k`` block; 0 outside any).
        message: The assertion's message.
    """

    def __init__(self, step: int, message: str) -> None:
        self.step, self.message = step, message
        super().__init__(f"step {step}: {message}")


class CommandRefused(PlanAssertion):
    """The game cannot take the command the plan just asked for (the plan's implicit assertion that
    its step can be done failed). The caller throws one into the run (``run.throw(CommandRefused(0,
    why))``) instead of sending an observation; the run raises it again naming the step it was in.

    Example:
        >>> run = run_plan(parse_plan("if start_from <= 1:\\n    act('take knife')"))
        >>> next(run)
        Act(command='take knife')
        >>> run.throw(CommandRefused(0, "'take knife' is not a possible action now"))
        Traceback (most recent call last):
        ...
        policies.plan_interpreter.CommandRefused: step 1: 'take knife' is not a possible action now
    """


@dataclass(frozen=True)
class Act:
    """A request to send ``command`` to the game; the run is sent back the observation."""

    command: str


@dataclass(frozen=True)
class Ask:
    """An in-plan question for the model; the run is sent back its answer (a string)."""

    question: str


@dataclass(frozen=True)
class Plan:
    """A checked plan: its statements and the source it came from."""

    body: tuple[ast.stmt, ...]
    source: str
    steps: int


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Return(Exception):
    pass


def strip_fences(text: str) -> str:
    """The code of a markdown ```` ```python ```` block (the text itself when it has none)."""
    if "```" not in text:
        return text
    inside = text.split("```")[1]
    return inside.split("\n", 1)[1] if inside.split("\n", 1)[0].strip().isalpha() else inside


def parse_plan(source: str) -> Plan:
    """Parses and checks a plan (see the module); raises :class:`PlanError` when it is not allowed."""
    code = strip_fences(source).strip("\n")
    try:
        tree = ast.parse(code)
    except SyntaxError as error:
        raise PlanError(f"line {error.lineno}: {error.msg}") from None
    body = list(tree.body)
    functions = [node for node in body if isinstance(node, ast.FunctionDef)]
    if functions:
        body = functions[0].body
    body = [node for node in body if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
    if not body:
        raise PlanError("the plan has no statement")
    for statement in body:
        _check(statement)
    steps = max((_step_of(node) for node in ast.walk(ast.Module(body=body, type_ignores=[]))
                 if isinstance(node, ast.If)), default=0)
    return Plan(tuple(body), code, steps)


def _check(node: ast.AST) -> None:
    for child in ast.walk(node):
        if not isinstance(child, _ALLOWED):
            raise PlanError(f"line {getattr(child, 'lineno', getattr(node, 'lineno', '?'))}: "
                            f"{type(child).__name__} is not allowed in a plan")
        if isinstance(child, ast.Attribute) and child.attr not in STRING_METHODS:
            raise PlanError(f"line {child.lineno}: attribute .{child.attr} is not allowed in a plan")
        if isinstance(child, ast.Call):
            _check_call(child)
        if isinstance(child, (ast.Assign, ast.AugAssign, ast.For)):
            targets = child.targets if isinstance(child, ast.Assign) else [child.target]
            if not all(isinstance(t, ast.Name) for t in targets):
                raise PlanError(f"line {child.lineno}: only plain names can be assigned in a plan")


def _check_call(call: ast.Call) -> None:
    function = call.func
    if isinstance(function, ast.Name) and function.id in {"act", "ask", "print", *BUILTINS}:
        return
    if isinstance(function, ast.Attribute) and function.attr in STRING_METHODS:
        return
    name = function.id if isinstance(function, ast.Name) else ast.unparse(function)
    raise PlanError(f"line {call.lineno}: calling {name}() is not allowed in a plan "
                    f"(allowed: act, ask, print, {', '.join(sorted(BUILTINS))}, string methods)")


def _step_of(node: ast.If) -> int:
    """``k`` for ``if start_from <= k:`` (else 0)."""
    test = node.test
    if (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "start_from"
            and len(test.ops) == 1 and isinstance(test.ops[0], ast.LtE)
            and isinstance(test.comparators[0], ast.Constant) and isinstance(test.comparators[0].value, int)):
        return int(test.comparators[0].value)
    return 0


Run = Generator["Act | Ask", str, None]


def steps_to_code(steps: Sequence[Mapping[str, Any]]) -> str:
    """A structured plan (``[{"action": ..., "expect": ...}, ...]``) as the same plan language: one
    ``if start_from <= k:`` block per step sending its action and asserting that the answer holds the
    expected words (none when ``expect`` is empty), so both plan forms run in one interpreter.

    Raises:
        PlanError: Not a list of steps with a non-empty ``action``.

    Example:
        >>> print(steps_to_code([{"action": "open fridge", "expect": "You open"}, {"action": "look", "expect": ""}]))
        def solution(start_from=1):
            if start_from <= 1:
                print('[Step 1] open fridge')
                obs = act('open fridge')
                assert 'you open' in obs.lower(), "Error in [Step 1]: expected 'you open' after 'open fridge'"
            if start_from <= 2:
                print('[Step 2] look')
                obs = act('look')
    """
    if not isinstance(steps, Sequence) or isinstance(steps, str) or not steps:
        raise PlanError("the plan is not a list of steps")
    lines = ["def solution(start_from=1):"]
    for number, step in enumerate(steps, 1):
        action = str(step.get("action", "")).strip() if isinstance(step, Mapping) else ""
        if not action:
            raise PlanError(f"step {number} has no action")
        expect = " ".join(str(step.get("expect") or "").lower().split())
        lines += [f"    if start_from <= {number}:", f"        print({f'[Step {number}] {action}'!r})",
                  f"        obs = act({action!r})"]
        if expect:
            message = f"Error in [Step {number}]: expected {expect!r} after {action!r}"
            lines.append(f"        assert {expect!r} in obs.lower(), {json.dumps(message)}")
    return "\n".join(lines)


def run_plan(plan: Plan, start_from: int = 1) -> Run:
    """Runs ``plan`` from step ``start_from``: yields :class:`Act` / :class:`Ask`, is sent their
    answers; raises :class:`PlanAssertion` at a failed ``assert`` and :class:`PlanError` when the
    plan does something wrong at run time (an unbound name, a loop over its bound, a type error)."""
    interpreter = _Interpreter(start_from)
    try:
        yield from interpreter.block(plan.body)
    except _Return:
        return
    except (_Break, _Continue):
        raise PlanError("break or continue outside a loop") from None


class _Interpreter:
    def __init__(self, start_from: int) -> None:
        self.names: dict[str, Any] = {"start_from": start_from}
        self.step = 0
        self.nodes = 0

    def block(self, statements: Any) -> Run:
        for statement in statements:
            yield from self.statement(statement)

    def statement(self, node: ast.stmt) -> Run:
        if isinstance(node, ast.Assign):
            value = yield from self.expr(node.value)
            for target in node.targets:
                self.names[target.id] = value  # type: ignore[attr-defined]  # checked: plain names
        elif isinstance(node, ast.AugAssign):
            value = yield from self.expr(node.value)
            name = str(getattr(node.target, "id", ""))  # checked: a plain name
            self.names[name] = self._binop(self._name(name), value)
        elif isinstance(node, ast.Expr):
            yield from self.expr(node.value)
        elif isinstance(node, ast.Assert):
            yield from self.assertion(node)
        elif isinstance(node, ast.If):
            yield from self.branch(node)
        elif isinstance(node, ast.For):
            yield from self.for_loop(node)
        elif isinstance(node, ast.While):
            yield from self.while_loop(node)
        elif isinstance(node, ast.Break):
            raise _Break
        elif isinstance(node, ast.Continue):
            raise _Continue
        elif isinstance(node, ast.Return):
            raise _Return

    def assertion(self, node: ast.Assert) -> Run:
        if not (yield from self.expr(node.test)):
            message = (yield from self.expr(node.msg)) if node.msg is not None else ast.unparse(node.test)
            raise PlanAssertion(self.step, str(message))

    def branch(self, node: ast.If) -> Run:
        step = _step_of(node)
        if (yield from self.expr(node.test)):
            outer, self.step = self.step, step or self.step
            yield from self.block(node.body)
            self.step = outer
        else:
            yield from self.block(node.orelse)

    def for_loop(self, node: ast.For) -> Run:
        items = yield from self.expr(node.iter)
        if isinstance(items, range) and len(items) > MAX_LOOP or not isinstance(items, (range, list, tuple, str)):
            raise PlanError(f"line {node.lineno}: a plan's for loop runs over range(n <= {MAX_LOOP}), "
                            "a list or a string")
        for item in list(items)[:MAX_LOOP]:
            self.names[node.target.id] = item  # type: ignore[attr-defined]
            try:
                yield from self.block(node.body)
            except _Break:
                return
            except _Continue:
                continue
        yield from self.block(node.orelse)

    def while_loop(self, node: ast.While) -> Run:
        for _ in range(MAX_LOOP):
            if not (yield from self.expr(node.test)):
                return
            try:
                yield from self.block(node.body)
            except _Break:
                return
            except _Continue:
                continue
        raise PlanError(f"line {node.lineno}: the while loop ran {MAX_LOOP} rounds (the limit)")

    def expr(self, node: ast.expr) -> Generator[Act | Ask, str, Any]:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise PlanError(f"the plan evaluated more than {MAX_NODES} expressions")
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.JoinedStr):
            parts = []
            for value in node.values:
                parts.append(str((yield from self.expr(value))))
            return self._short("".join(parts))
        if isinstance(node, ast.FormattedValue):
            return (yield from self.expr(node.value))
        if isinstance(node, (ast.List, ast.Tuple)):
            items = []
            for element in node.elts:
                items.append((yield from self.expr(element)))
            return items
        if isinstance(node, ast.BinOp):
            left = yield from self.expr(node.left)
            right = yield from self.expr(node.right)
            return self._binop(left, right)
        if isinstance(node, ast.UnaryOp):
            operand: Any = yield from self.expr(node.operand)
            return (not operand) if isinstance(node.op, ast.Not) else self._typed(partial(operator.neg, operand), node)
        if isinstance(node, ast.BoolOp):
            return (yield from self.bool_op(node))
        if isinstance(node, ast.Compare):
            return (yield from self.compare(node))
        if isinstance(node, ast.Subscript):
            value = yield from self.expr(node.value)
            index = yield from self.expr(node.slice)
            return self._typed(lambda: value[index], node)
        if isinstance(node, ast.Slice):
            bounds = []
            for part in (node.lower, node.upper, node.step):
                bounds.append(None if part is None else (yield from self.expr(part)))
            return slice(*bounds)
        if isinstance(node, ast.Call):
            return (yield from self.call(node))
        raise PlanError(f"line {node.lineno}: {type(node).__name__} is not allowed in a plan")

    def bool_op(self, node: ast.BoolOp) -> Generator[Act | Ask, str, Any]:
        value: Any = None
        for operand in node.values:
            value = yield from self.expr(operand)
            if bool(value) == isinstance(node.op, ast.Or):
                return value
        return value

    def compare(self, node: ast.Compare) -> Generator[Act | Ask, str, Any]:
        left = yield from self.expr(node.left)
        for op, comparator in zip(node.ops, node.comparators):
            right = yield from self.expr(comparator)
            if not self._typed(partial(_COMPARE[type(op)], left, right), node):
                return False
            left = right
        return True

    def call(self, node: ast.Call) -> Generator[Act | Ask, str, Any]:
        args = []
        for argument in node.args:
            args.append((yield from self.expr(argument)))
        function = node.func
        if isinstance(function, ast.Attribute):
            owner = yield from self.expr(function.value)
            if not isinstance(owner, str):
                raise PlanError(f"line {node.lineno}: .{function.attr}() is only allowed on strings")
            return self._short(self._typed(lambda: getattr(owner, function.attr)(*args), node))
        name = function.id  # type: ignore[attr-defined]  # checked by _check_call
        if name == "act":
            try:
                return (yield Act(" ".join(str(a) for a in args).strip()))
            except CommandRefused as refused:
                raise CommandRefused(self.step, refused.message) from None
        if name == "ask":
            return (yield Ask(" ".join(str(a) for a in args).strip()))
        if name == "print":
            return None
        return self._typed(lambda: BUILTINS[name](*args), node)

    def _name(self, name: str) -> Any:
        if name not in self.names:
            raise PlanError(f"name {name!r} is used before the plan assigns it")
        return self.names[name]

    def _binop(self, left: Any, right: Any) -> Any:
        if isinstance(left, str) and not isinstance(right, str):
            right = str(right)
        return self._short(self._typed(lambda: left + right, None))

    @staticmethod
    def _short(value: Any) -> Any:
        if isinstance(value, (str, list)) and len(value) > MAX_STRING:
            raise PlanError(f"the plan built a value longer than {MAX_STRING}")
        return value

    @staticmethod
    def _typed(compute: Callable[[], Any], node: ast.AST | None) -> Any:
        try:
            return compute()
        except (TypeError, ValueError, IndexError, KeyError, AttributeError, ZeroDivisionError) as error:
            where = f"line {getattr(node, 'lineno', '?')}: " if node is not None else ""
            raise PlanError(f"{where}{type(error).__name__}: {error}") from None


__all__ = ["BUILTINS", "MAX_LOOP", "MAX_NODES", "STRING_METHODS", "Act", "Ask", "CommandRefused", "Plan",
           "PlanAssertion", "PlanError", "parse_plan", "run_plan", "steps_to_code", "strip_fences"]
