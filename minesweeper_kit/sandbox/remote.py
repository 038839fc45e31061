"""Objects that live in another process, used from here as if they were local.

This is how a student's own tests meet the implementations they are graded against without
seeing them. The tests run in one sandbox; the implementation under test (a correct one, or a
planted bug) runs in another, behind a :class:`Host`. In the tests' sandbox every name the step
defines (``HyperMinesGame``, ``neighbors``...) is a stand-in made by :func:`stand_ins`: calling
it, reading or setting an attribute, indexing or printing one of its objects sends a small request
(plain JSON) through the grader to the host and brings back the answer. Nothing of the
implementation's code crosses: no source, code object, file name or qualified name, so a test can
tell two implementations apart only by what they do.

Values cross by value, with their shape kept: lists, dicts and sets are numbered, so two places
holding the same list on one side hold the same list on the other (the aliasing bug of step 2
stays visible), and the lists, dicts and sets passed to a call are written back in place
afterwards (``set_coords(board, ...)`` changes the caller's ``board``, as a local call would).
Objects that are not plain values (a game, a field) stay with the host and cross as numbered
references. An attribute read is a copy: change one by assigning it whole.

Wire forms (JSON): scalars as they are; ``{"L": n, "v": [...]}`` a list, ``{"D": n, "v": [[k, v],
...]}`` a dict, ``{"S": n, "v": [...]}`` a set, ``{"@": n}`` one of those seen before in the same
message or call; ``{"T": [...]}`` a tuple, ``{"F": [...]}`` a frozenset; ``{"O": n, "t": name}`` an
object kept by the host. A request is ``{"op": ..., "target": n or null, "name": ..., "args": [...],
"kwargs": [[k, v], ...]}``; an answer ``{"value": ...}`` (with ``"updates": [[n, contents], ...]``
after a call), ``{"method": true}`` for a read of a method, or ``{"error": {"type", "message"}}``.

This file runs inside sandboxes from a read-only copy: the standard library only.
"""

from __future__ import annotations

import builtins
import json
import sys
import types
from collections.abc import Callable
from typing import Any

__all__ = ["Host", "RemoteError", "bind", "stand_ins", "dumps", "loads", "MAX_NESTING", "SPECIAL_METHODS"]

#: How the tests' side reaches the host: set by the sandbox's child when its grader answers
#: requests (text in, text out).
channel: Callable[[str], str] | None = None

#: How deeply values may nest; deeper ones are refused rather than overflowing a stack.
MAX_NESTING = 200
#: The special methods a test may use on a host's object (``game[i]``, ``len(field)``, ``x in f``).
SPECIAL_METHODS = ("__getitem__", "__setitem__", "__len__", "__contains__")
_SCALARS = (bool, int, float, str, type(None))
_CONTAINERS = (list, dict, set)


class RemoteError(Exception):
    """An exception the implementation raised whose type has no builtin name here."""


def dumps(message: Any) -> str:
    return json.dumps(message, separators=(",", ":"))


def loads(text: str) -> Any:
    return json.loads(text)


# ------------------------------------------------------------------------------- values
class _Encoder:
    """Plain values to wire forms; ``keep`` turns any other object into ``{"O": n, "t": name}``
    (or refuses it)."""

    def __init__(self, known: dict[int, int], keep: Callable[[Any], dict]):
        self.ids = dict(known)
        self.next = max(self.ids.values(), default=0) + 1
        self.keep = keep
        self.alive: list[Any] = []  # what was numbered, kept alive so its id() is not reused

    def number(self, value: Any) -> int:
        number = self.next
        self.next += 1
        self.ids[id(value)] = number
        self.alive.append(value)
        return number

    def __call__(self, value: Any, depth: int = 0) -> Any:
        if depth > MAX_NESTING:
            raise ValueError(f"a value nested more than {MAX_NESTING} levels deep cannot be passed")
        kind = type(value)
        if kind in _SCALARS:
            return value
        if kind in _CONTAINERS:
            seen = self.ids.get(id(value))
            if seen is not None:
                return {"@": seen}
            number = self.number(value)
            return {"L" if kind is list else "D" if kind is dict else "S": number, "v": self.contents(value, depth)}
        if kind is tuple:
            return {"T": [self(item, depth + 1) for item in value]}
        if kind is frozenset:
            return {"F": [self(item, depth + 1) for item in value]}
        return self.keep(value)

    def contents(self, value: Any, depth: int = 0) -> list:
        if type(value) is dict:
            return [[self(k, depth + 1), self(v, depth + 1)] for k, v in value.items()]
        return [self(item, depth + 1) for item in value]


class _Decoder:
    """Wire forms back to values; ``table`` maps the numbers of lists, dicts and sets to the
    objects, ``resolve`` turns ``{"O": n, "t": name}`` into an object."""

    def __init__(self, resolve: Callable[[int, str], Any], table: dict[int, Any] | None = None):
        self.table: dict[int, Any] = {} if table is None else table
        self.resolve = resolve

    def __call__(self, data: Any, depth: int = 0) -> Any:
        if depth > MAX_NESTING:
            raise ValueError(f"a value nested more than {MAX_NESTING} levels deep cannot be passed")
        if type(data) in _SCALARS:
            return data
        if type(data) is list:  # only inside forms; never a value on its own
            raise ValueError("malformed value")
        if "@" in data:
            try:
                return self.table[int(data["@"])]
            except (KeyError, ValueError, TypeError):
                raise ValueError("malformed value") from None
        if "T" in data:
            return tuple(self(item, depth + 1) for item in data["T"])
        if "F" in data:
            return frozenset(self(item, depth + 1) for item in data["F"])
        if "O" in data:
            return self.resolve(int(data["O"]), str(data.get("t", "object")))
        for tag, kind in (("L", list), ("D", dict), ("S", set)):
            if tag in data:
                value: Any = kind()
                self.table[int(data[tag])] = value
                self.fill(value, data["v"], depth)
                return value
        raise ValueError("malformed value")

    def fill(self, target: Any, contents: list, depth: int = 0) -> None:
        """Put decoded ``contents`` into the list, dict or set ``target``, replacing what it held."""
        if type(target) is dict:
            items = [(self(k, depth + 1), self(v, depth + 1)) for k, v in contents]
            target.clear()
            target.update(items)
        elif type(target) is set:
            members = [self(item, depth + 1) for item in contents]
            target.clear()
            target.update(members)
        else:
            target[:] = [self(item, depth + 1) for item in contents]


# --------------------------------------------------------------------------------- host
class Host:
    """The implementation's side: answers requests on the names one implementation defines, keeps
    the objects it made behind numbers, and logs every call for the grader.

    ``implementations`` maps a label to the names an implementation defines (its module's
    namespace). The grader chooses one with :meth:`use`; requests never name it, so the tests'
    side cannot ask for another. Only public names and :data:`SPECIAL_METHODS` are reachable:
    no ``__class__``, ``__dict__``, ``__globals__`` or ``__code__``."""

    def __init__(self, implementations: dict[str, dict[str, Any]], exported: tuple[str, ...]):
        self.implementations = implementations
        self.exported = exported
        self.current: dict[str, Any] = {}
        self.objects: dict[int, Any] = {}
        self.made = 0
        self.log: list[dict[str, Any]] = []
        self.test = ""

    # the grader's requests
    def use(self, label: str) -> None:
        """Answer for the implementation ``label`` from now on; forget every object made so far."""
        self.current = self.implementations[label]
        self.objects, self.made, self.log, self.test = {}, 0, [], ""

    def begin(self, test: str) -> None:
        """Calls from now on belong to the test ``test`` (in the log)."""
        self.test = test

    def calls(self) -> list[dict[str, Any]]:
        return list(self.log)

    def describe(self) -> dict[str, str]:
        """Each exported name's kind ("class" or "function"), the same for every implementation."""
        return {name: "class" if isinstance(self.current.get(name), type) else "function" for name in self.exported}

    # the tests' requests
    def handle(self, text: str) -> str:
        """One request from the tests' side (JSON text) to its answer (JSON text); never raises."""
        try:
            request = loads(text)
            op = request["op"]
            if op not in ("call", "get", "set", "str", "repr", "list"):
                raise ValueError(f"unknown request {op!r}")
            answer = getattr(self, "_" + op)(request)
        except _Refused as error:
            answer = {"error": {"type": "AttributeError", "message": str(error)}}
        except Exception as error:  # noqa: BLE001 - the implementation's exception goes back to the test
            answer = {"error": {"type": type(error).__name__, "message": _message(error)}}
        return dumps(answer)

    def _target(self, request: dict) -> Any:
        target = request.get("target")
        if target is None:
            return None
        try:
            return self.objects[int(target)]
        except (KeyError, ValueError, TypeError):
            raise _Refused("that object no longer exists") from None

    def _named(self, target: Any, name: Any, special: bool = False) -> Any:
        """``target``'s attribute ``name``; with no target, a tested name, or a public attribute of
        one (``MineField.random``)."""
        if not isinstance(name, str):
            raise _Refused(f"no attribute {name!r}")
        if target is None:
            first, _, rest = name.partition(".")
            if first not in self.exported:
                raise _Refused(f"no name {first!r} here: the tested names are {', '.join(self.exported)}")
            if not rest:
                return self.current[first]
            target, name = self.current[first], rest
        if not name.isidentifier():
            raise _Refused(f"no attribute {name!r}")
        if name.startswith("_") and not (special and name in SPECIAL_METHODS):
            raise _Refused(f"{name!r}: only public names can be used")
        return getattr(target, name)

    def _keep(self, value: Any) -> dict:
        for number, kept in self.objects.items():
            if kept is value:
                return {"O": number, "t": _type_name(value)}
        self.made += 1
        number = self.made
        self.objects[number] = value
        return {"O": number, "t": _type_name(value)}

    def _resolve(self, number: int, name: str) -> Any:
        try:
            return self.objects[number]
        except KeyError:
            raise _Refused("that object no longer exists") from None

    def _call(self, request: dict) -> dict:
        target = self._target(request)
        function = self._named(target, request.get("name"), special=True)
        decode = _Decoder(self._resolve)
        args = [decode(a) for a in request.get("args", [])]
        kwargs = {str(k): decode(v) for k, v in request.get("kwargs", [])}
        entry: dict[str, Any] = {"test": self.test, "name": request.get("name"), "target": request.get("target")}
        self.log.append(entry)
        try:
            value = function(*args, **kwargs)
        except BaseException as error:
            entry["raised"] = type(error).__name__
            if not isinstance(error, Exception):
                raise RuntimeError(f"{type(error).__name__} in the implementation") from None
            raise
        encode = _Encoder({id(obj): n for n, obj in decode.table.items()}, self._keep)
        updates = [[n, encode.contents(obj)] for n, obj in list(decode.table.items())]
        encoded = encode(value)
        entry["args"] = _summary(args)
        entry["value"] = _summary(value)
        if isinstance(encoded, dict) and "O" in encoded:
            entry["made"] = encoded["O"]
        if target is not None and not callable(getattr(target, "state", None)):
            entry["state"] = _summary(getattr(target, "state", None))
        return {"updates": updates, "value": encoded}

    def _get(self, request: dict) -> dict:
        target = self._target(request)
        value = self._named(target, request.get("name"))
        if callable(value):
            return {"method": True}
        return {"value": _Encoder({}, self._keep)(value)}

    def _set(self, request: dict) -> dict:
        target = self._target(request)
        name = request.get("name")
        if target is None:
            raise _Refused("the tested names cannot be replaced")
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
            raise _Refused(f"{name!r}: only public names can be set")
        [value] = request.get("args", [None])[:1] or [None]
        setattr(target, name, _Decoder(self._resolve)(value))
        return {"value": None}

    def _str(self, request: dict) -> dict:
        return {"value": str(self._target(request))}

    def _repr(self, request: dict) -> dict:
        return {"value": repr(self._target(request))}

    def _list(self, request: dict) -> dict:
        return {"value": _Encoder({}, self._keep)(list(self._target(request)))}


class _Refused(Exception):
    """A request for something the tests may not reach."""


def _type_name(value: Any) -> str:
    return type(value).__name__[:80]


def _message(error: BaseException) -> str:
    text = str(error)
    return text if len(text) <= 2000 else text[:2000] + "..."


def _summary(value: Any, budget: int = 400) -> Any:
    """A short plain copy of a value for the grader's log (the structure checks read it): lists for
    sequences and sets, objects by their type's name; None when it is too big to log."""
    try:
        plain = _plain(value, 0)
        text = dumps(plain)
    except (ValueError, TypeError, RecursionError):
        return None
    return plain if len(text) <= budget else None


def _plain(value: Any, depth: int) -> Any:
    if depth > 20:
        raise ValueError("too deep")
    if type(value) in _SCALARS:
        return value
    if type(value) in (list, tuple, set, frozenset):
        return [_plain(item, depth + 1) for item in value]
    if type(value) is dict:
        return {str(k): _plain(v, depth + 1) for k, v in value.items()}
    return f"<{_type_name(value)}>"


# --------------------------------------------------------------------------- stand-ins
class _Remote:
    """The tests' side of one host: sends requests through ``send`` (text in, text out)."""

    def __init__(self, send: Callable[[str], str], module: str):
        self.send, self.module = send, module
        self.classes: dict[str, type] = {}

    def ask(self, request: dict, args: tuple = (), kwargs: dict | None = None) -> Any:
        encode = _Encoder({}, self._reference)
        if args or kwargs:
            request["args"] = [encode(a) for a in args]
            request["kwargs"] = [[k, encode(v)] for k, v in (kwargs or {}).items()]
        answer = loads(self.send(dumps(request)))
        if "error" in answer:
            raise _exception(answer["error"])
        decode = _Decoder(self._object, dict(enumerate(encode.alive, start=1)))
        for number, contents in answer.get("updates", []):
            target = decode.table.get(number)
            if target is not None:
                decode.fill(target, contents)
        if answer.get("method"):
            return _IS_METHOD
        return decode(answer.get("value"))

    def _reference(self, value: Any) -> dict:
        number = _REFERENCES.get(id(value))
        if number is None or number[0] is not value:
            raise TypeError(
                f"a {type(value).__name__} cannot be passed to the tested code here: pass numbers, strings, "
                "lists, tuples, dicts, sets and the objects the tested code made"
            )
        return {"O": number[1]}

    def _object(self, number: int, type_name: str) -> Any:
        cls = self.classes.get(type_name)
        if cls is None:
            cls = self.classes[type_name] = _object_class(self, type_name)
        obj: Any = object.__new__(cls)
        _REFERENCES[id(obj)] = (obj, number)
        return obj


#: What a read of a method answers: the stand-in makes a method that calls the host's.
_IS_METHOD = object()
#: Each stand-in object's host number, by id (kept out of the object, which has no attributes).
_REFERENCES: dict[int, tuple[Any, int]] = {}


def _exception(error: dict) -> BaseException:
    name, message = str(error.get("type", "Exception")), str(error.get("message", ""))
    kind = getattr(builtins, name, None)
    if isinstance(kind, type) and issubclass(kind, Exception):
        try:
            return kind(message)
        except Exception:  # noqa: BLE001 - an exception type that wants other arguments
            pass
    return type(name, (RemoteError,), {})(message)


def _method(remote: _Remote, target: int | None, name: str) -> Callable[..., Any]:
    def method(*args: Any, **kwargs: Any) -> Any:
        return remote.ask({"op": "call", "target": target, "name": name}, args, kwargs)

    method.__name__ = method.__qualname__ = name
    return method


def _number(obj: Any) -> int:
    return _REFERENCES[id(obj)][1]


def _object_class(remote: _Remote, type_name: str, metaclass: type = type) -> type:
    """The class of the stand-ins for the host's objects of type ``type_name``."""

    def __getattr__(self: Any, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = remote.ask({"op": "get", "target": _number(self), "name": name})
        if value is _IS_METHOD:
            return _method(remote, _number(self), name)
        return value

    def __setattr__(self: Any, name: str, value: Any) -> None:
        remote.ask({"op": "set", "target": _number(self), "name": name}, (value,))

    def special(name: str) -> Callable[..., Any]:
        def call(self: Any, *args: Any) -> Any:
            return remote.ask({"op": "call", "target": _number(self), "name": name}, args)

        call.__name__ = name
        return call

    namespace: dict[str, Any] = {
        "__slots__": (),
        "__module__": remote.module,
        "__getattr__": __getattr__,
        "__setattr__": __setattr__,
        "__str__": lambda self: remote.ask({"op": "str", "target": _number(self)}),
        "__repr__": lambda self: remote.ask({"op": "repr", "target": _number(self)}),
        "__iter__": lambda self: iter(remote.ask({"op": "list", "target": _number(self)})),
        "__hash__": lambda self: hash(_number(self)),
        "__eq__": lambda self, other: self is other,
    }
    for name in SPECIAL_METHODS:
        namespace[name] = special(name)
    cls = metaclass(type_name, (), namespace)
    cls.__qualname__ = type_name
    return cls


class _ClassMeta(type):
    """Calling a stand-in class makes the object with the host; its public attributes are the host
    class's static and class methods (``MineField.random(...)``)."""

    _stand_remote: _Remote

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls._stand_remote.ask({"op": "call", "target": None, "name": cls.__name__}, args, kwargs)

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return _method(cls._stand_remote, None, f"{cls.__name__}.{name}")


def stand_ins(send: Callable[[str], str], kinds: dict[str, str], module: str = "lab") -> types.ModuleType:
    """A module holding a stand-in for every tested name (``kinds``: name -> "class" or "function"),
    each answering through ``send``; it is also registered as ``sys.modules[module]`` so that a
    test file's ``import lab`` finds it."""
    remote = _Remote(send, module)
    stand = types.ModuleType(module, "The names under test.")
    for name, kind in kinds.items():
        if kind == "class":
            cls = _object_class(remote, name, _ClassMeta)
            type.__setattr__(cls, "_stand_remote", remote)
            remote.classes[name] = cls
            setattr(stand, name, cls)
        else:
            function = _method(remote, None, name)
            function.__module__ = module
            setattr(stand, name, function)
    sys.modules[module] = stand
    return stand


def bind(namespace: dict[str, Any], kinds: dict[str, str], module: str = "lab") -> None:
    """Put a stand-in for every tested name into ``namespace`` (a test module's globals), answering
    through :data:`channel`."""
    if channel is None:
        raise RuntimeError("no host to answer: the tests must run in the grader's sandbox")
    stand = stand_ins(channel, kinds, module)
    for name in kinds:
        namespace[name] = getattr(stand, name)
