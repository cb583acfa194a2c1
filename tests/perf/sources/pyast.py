"""Read the labelled examples of a peer's Python test file without running it (pure, ``ast``).

Nothing of the peer's code is imported or executed: parametrize lists, fixtures that return a
literal, and docstrings are read as data. An entry that is not a literal (a call that builds a
value at test time) is reported as skipped rather than guessed.
"""

from __future__ import annotations

import ast
import string
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Param:
    """One parametrize entry: the test function, its position, and its named values."""

    function: str
    index: int
    values: dict[str, Any] | None
    """``None`` when the entry cannot be read as one value per name."""


class NotLiteral(ValueError):
    """An expression that is not a plain literal."""


UNREADABLE = object()
"""Stands for a value that is not a literal, inside a dict or an entry read field by field."""


def literal(node: ast.AST, names: dict[str, Any] | None = None) -> Any:
    """The value of a literal expression; also ``pytest.param``, names bound at module level
    to a literal (``names``), and strings built from those by f-strings and ``str.format``.

    Raises:
        NotLiteral: anything else (calls, other names, comprehensions).
    """
    names = names or {}
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.JoinedStr):
        return "".join(_f_part(v, names) for v in node.values)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "format" and not node.keywords:  # "password = '{}'".format(SECRET)
            template = literal(node.func.value, names)
            arguments = [literal(a, names) for a in node.args]
            if _plain_fields(template) and all(isinstance(a, str) for a in arguments):
                return template.format(*arguments)
        raise NotLiteral("call")
    if isinstance(node, ast.Tuple | ast.List):
        return type_of(node)(literal(e, names) for e in node.elts)
    if isinstance(node, ast.Dict):
        return {
            literal(k, names): _field(v, names)
            for k, v in zip(node.keys, node.values, strict=True)
            if k
        }
    if isinstance(node, ast.Call) and _dotted(node.func).endswith("param"):
        return tuple(literal(a, names) for a in node.args)
    try:
        return ast.literal_eval(node)
    except ValueError as exc:
        raise NotLiteral(type(node).__name__) from exc


def _plain_fields(template: Any) -> bool:
    """Whether a format string's fields are bare places (``{}``, ``{0}``): no attribute, index,
    conversion or format spec a peer's file could make costly."""
    if not isinstance(template, str):
        return False
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError:
        return False
    return all(
        name is None or (name.isdigit() or name == "") and not spec and not conversion
        for _, name, spec, conversion in fields
    )


def _f_part(node: ast.AST, names: dict[str, Any]) -> str:
    """A piece of an f-string: text, or a field that is a literal string with no format."""
    if isinstance(node, ast.Constant):
        return str(node.value)
    if isinstance(node, ast.FormattedValue) and node.conversion == -1 and not node.format_spec:
        value = literal(node.value, names)
        if isinstance(value, str):
            return value
    raise NotLiteral("f-string with fields")


def _field(node: ast.AST, names: dict[str, Any]) -> Any:
    try:
        return literal(node, names)
    except NotLiteral:
        return UNREADABLE


def module_constants(tree: ast.Module) -> dict[str, Any]:
    """Names bound at module level to a literal (``_preamble = "..."``)."""
    found: dict[str, Any] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                value = _field(statement.value, found)
                if value is not UNREADABLE:
                    found[target.id] = value
    return found


def type_of(node: ast.Tuple | ast.List) -> type[tuple[Any, ...]] | type[list[Any]]:
    """``tuple`` or ``list``, as written."""
    return tuple if isinstance(node, ast.Tuple) else list


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


def _argnames(node: ast.AST) -> list[str]:
    value = literal(node)
    if isinstance(value, str):
        return [n.strip() for n in value.split(",") if n.strip()]
    return [str(n).strip() for n in value]


def parametrize(source: str) -> Iterator[Param]:
    """Every ``@pytest.mark.parametrize`` entry of a test module, as named values.

    An entry written as a tuple is read field by field: a field that is not a literal is
    ``UNREADABLE`` and the others are still there.
    """
    tree = ast.parse(source)
    names = module_constants(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            if not (
                isinstance(decorator, ast.Call)
                and _dotted(decorator.func).endswith("parametrize")
                and len(decorator.args) >= 2
                and isinstance(decorator.args[1], ast.List | ast.Tuple)
            ):
                continue
            argnames = _argnames(decorator.args[0])
            for index, entry in enumerate(decorator.args[1].elts):
                yield Param(node.name, index, _entry(argnames, entry, names))


def _entry(argnames: list[str], entry: ast.AST, names: dict[str, Any]) -> dict[str, Any] | None:
    if len(argnames) == 1:
        value = _field(entry, names)
        return None if value is UNREADABLE else {argnames[0]: value}
    if isinstance(entry, ast.Call) and _dotted(entry.func).endswith("param"):
        entry = ast.Tuple(elts=list(entry.args))
    if not isinstance(entry, ast.Tuple | ast.List) or len(entry.elts) != len(argnames):
        return None
    return {n: _field(e, names) for n, e in zip(argnames, entry.elts, strict=True)}


def fixture_list(source: str, name: str) -> list[Any] | None:
    """What a fixture function ``name`` returns, when it returns a literal."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            for statement in node.body:
                if isinstance(statement, ast.Return) and statement.value is not None:
                    try:
                        value = literal(statement.value)
                    except NotLiteral:
                        return None
                    return list(value) if isinstance(value, tuple | list) else [value]
    return None


def docstrings(source: str) -> Iterator[tuple[str, str]]:
    """``(function name, docstring)`` of every function with a docstring."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield node.name, doc


def string_calls(source: str, method: str) -> Iterator[tuple[str, int, str]]:
    """``(enclosing function, position, argument)`` for each string given to ``method(...)``."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef):
            continue
        position = 0
        for call in ast.walk(node):
            if isinstance(call, ast.Call) and _dotted(call.func).endswith(f".{method}"):
                for arg in call.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        yield node.name, position, arg.value
                        position += 1


def returned_format(source: str, function: str) -> str | None:
    """The format string a function returns as ``"... %s ..." % value``, if it does."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == function:
            for statement in ast.walk(node):
                if (
                    isinstance(statement, ast.Return)
                    and isinstance(statement.value, ast.BinOp)
                    and isinstance(statement.value.op, ast.Mod)
                    and isinstance(statement.value.left, ast.Constant)
                    and isinstance(statement.value.left.value, str)
                ):
                    return statement.value.left.value
    return None
