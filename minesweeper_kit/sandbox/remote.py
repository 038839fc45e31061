"""Objects that live in another process, used from here as if they were local.

This is how a student's own tests meet the implementations they are graded against without
seeing them. The tests run in one sandbox; the implementation under test (a correct one, or a
planted bug) runs in another, behind a :class:`Host`. In the tests' sandbox every name the step
defines (``HyperMinesGame``, ``neighbors``...) is a stand-in made by :func:`stand_ins`: calling
it, reading or setting an attribute, indexing or printing one of its objects sends a small request
(plain JSON) through the grader to the host and brings back the answer. Nothing of the
implementation's code crosses: no source, code object, file name or qualified name, so a test can
tell two implementations apart only by what they do.

What a test can observe is what a local call would show it:

* **Values** cross by value with their shape kept: lists, dicts and sets are numbered, so two
  places holding the same list on one side hold the same list on the other (the aliasing bug of
  step 2 stays visible), and the lists, dicts and sets passed to a call are written back in place
  afterwards (``set_coords(board, ...)`` changes the caller's ``board``).
* **Attributes** are live: the lists, dicts and sets an attribute read brings back are *kept* on
  both sides under one number, so ``game.mask[r][c] = True`` changes the game's mask before its
  next use, and a mask the game changes in place shows the change in the test's hands. A kept
  container the test no longer holds is forgotten on both sides.
* **Printed output** of the implementation is printed again on the tests' side, where ``capsys``
  or ``contextlib.redirect_stdout`` catch it (``dump()``, ``print_grid``).
* A ``random.Random`` (or the ``random`` module itself) passed to a call crosses with its state,
  and comes back with the state the call left it in, as a local call would.
* **Files**: a string argument naming a file the test wrote (``read_file(path)`` on a file in
  ``tmp_path``) travels as the file: the implementation gets the path of a copy on its side.

Objects that are not plain values (a game, a field) stay with the host and cross as numbered
references.

Wire forms (JSON): scalars as they are; ``{"L": n, "v": [...]}`` a list, ``{"D": n, "v": [[k, v],
...]}`` a dict, ``{"S": n, "v": [...]}`` a set, ``{"@": n}`` one of those seen before in the same
message or call; ``{"K": n, "t": "L"|"D"|"S", "v": ...}`` a *kept* container introduced as
number n and ``{"k": n}`` a kept container known to both sides; ``{"T": [...]}`` a tuple,
``{"F": [...]}`` a frozenset; ``{"R": n, "s": state}`` a random generator (``"m": true`` for the
``random`` module); ``{"O": n, "t": name}`` an object kept by the host. A request is ``{"op": ...,
"target": n or null, "name": ..., "args": [...], "kwargs": [[k, v], ...]}`` with, when they apply,
``"sync": [[n, contents], ...]`` (kept containers the test changed) and ``"drop": [n, ...]`` (kept
containers it let go); a string argument naming a file travels as ``{"file": name, "data":
base64}``. An answer is ``{"value": ...}``
(with ``"updates": [[n, contents], ...]`` and ``"rng": [[n, state], ...]`` after a call),
``{"method": true}`` for a read of a method, or ``{"error": {"type", "message"}}``; any of them may
add ``"printed"`` (text), ``"synced"`` (kept containers the host changed) and ``"stop"`` (the grader
ends the test: :class:`TestStopped`).

This file runs inside sandboxes from a read-only copy: the standard library only.
"""

from __future__ import annotations

import base64
import builtins
import contextlib
import hashlib
import io
import json
import os
import random
import re
import sys
import types
from collections.abc import Callable
from typing import Any

__all__ = [
    "Host",
    "RemoteError",
    "TestStopped",
    "bind",
    "stand_ins",
    "dumps",
    "loads",
    "canonical",
    "forget",
    "request_key",
    "MAX_NESTING",
    "SPECIAL_METHODS",
]

#: How the tests' side reaches the host: set by the sandbox's child when its grader answers
#: requests (text in, text out).
channel: Callable[[str], str] | None = None

#: How deeply values may nest; deeper ones are refused rather than overflowing a stack.
MAX_NESTING = 200
#: The special methods a test may use on a host's object (``game[i]``, ``len(field)``, ``x in f``).
SPECIAL_METHODS = ("__getitem__", "__setitem__", "__len__", "__contains__")
#: What the implementation may print during one request that is passed on (the rest is cut).
PRINTED_CHARACTERS = 64_000
#: Files that travel with a call: each at most this large, all of one request together at most that.
FILE_BYTES = 1 << 20
FILES_BYTES = 4 << 20
_SCALARS = (bool, int, float, str, type(None))
_CONTAINERS = (list, dict, set)
_TAGS = {list: "L", dict: "D", set: "S"}
_KINDS = {"L": list, "D": dict, "S": set}


class RemoteError(Exception):
    """An exception the implementation raised whose type has no builtin name here."""


class TestStopped(BaseException):
    """The grader stopped the test (it used up its time, its own and the tested code's on its
    behalf). A BaseException, so that a test's ``except Exception`` does not swallow it."""


def dumps(message: Any) -> str:
    return json.dumps(message, separators=(",", ":"))


def loads(text: str) -> Any:
    return json.loads(text)


def canonical(text: str) -> Any:
    """An answer as a value two answers can be compared by, whatever order their sets and
    frozensets were listed in (the order a set iterates in is not a behaviour)."""

    def walk(value: Any) -> Any:
        if isinstance(value, list):
            return [walk(item) for item in value]
        if isinstance(value, dict):
            found = {key: walk(item) for key, item in value.items()}
            for tag in ("S", "F"):
                if tag in found:
                    key = "v" if tag == "S" else "F"
                    if isinstance(found.get(key), list):
                        found[key] = sorted(found[key], key=repr)
            return found
        return (type(value).__name__, value)  # True is not 1, and 1.0 is not 1, to a test

    try:
        return walk(loads(text))
    except (ValueError, RecursionError):
        return text


def _is_generator(value: Any) -> bool:
    return type(value) is random.Random or value is random


def _generator_state(value: Any) -> list:
    version, internal, gauss = value.getstate()
    return [version, list(internal), gauss]


def _set_generator_state(target: Any, state: Any) -> None:
    """Give ``target`` (a ``random.Random`` or the module) the state ``state`` crossed with;
    ValueError when it is not one."""
    try:
        version, internal, gauss = state
        if not (isinstance(internal, list) and all(type(x) is int for x in internal)):
            raise TypeError
        target.setstate((version, tuple(internal), gauss))
    except (TypeError, ValueError, OverflowError):
        raise ValueError("malformed random generator state") from None


# ------------------------------------------------------------------------------- values
class _Encoder:
    """Plain values to wire forms. ``keep`` turns any other object into ``{"O": n, "t": name}``
    (or refuses it); ``kept`` maps the ids of kept containers to their numbers (written
    ``{"k": n}``); with ``register`` every other container becomes kept too (``{"K": ...}``: an
    attribute's value on the host's side)."""

    def __init__(
        self,
        known: dict[int, int],
        keep: Callable[[Any], dict],
        kept: dict[int, int] | None = None,
        register: Callable[[Any], int] | None = None,
        registered: Callable[[int, Any], None] | None = None,
    ):
        self.ids = dict(known)
        self.next = max(self.ids.values(), default=0) + 1
        self.keep = keep
        self.kept = kept if kept is not None else {}
        self.register = register
        self.registered = registered
        self.alive: list[Any] = []  # what was numbered, kept alive so its id() is not reused
        self.generators: list[tuple[int, Any]] = []

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
            held = self.kept.get(id(value))
            if held is not None:
                return {"k": held}
            if self.register is not None:
                number = self.register(value)
                kept = {"K": number, "t": _TAGS[kind], "v": self.contents(value, depth)}
                if self.registered is not None:
                    self.registered(number, value)
                return kept
            seen = self.ids.get(id(value))
            if seen is not None:
                return {"@": seen}
            number = self.number(value)
            return {_TAGS[kind]: number, "v": self.contents(value, depth)}
        if kind is tuple:
            return {"T": [self(item, depth + 1) for item in value]}
        if kind is frozenset:
            return {"F": [self(item, depth + 1) for item in value]}
        if _is_generator(value) and self.register is None:
            number = self.number(value)
            self.generators.append((number, value))
            form: dict[str, Any] = {"R": number, "s": _generator_state(value)}
            if value is random:
                form["m"] = True
            return form
        return self.keep(value)

    def contents(self, value: Any, depth: int = 0) -> list:
        if type(value) is dict:
            return [[self(k, depth + 1), self(v, depth + 1)] for k, v in value.items()]
        return [self(item, depth + 1) for item in value]


class _Decoder:
    """Wire forms back to values; ``table`` maps the numbers of the message's lists, dicts, sets
    and generators to the objects, ``kept`` the numbers of kept containers (``found`` is called
    with each container a ``{"K": ...}`` form introduces); ``resolve`` turns ``{"O": n, "t":
    name}`` into an object."""

    def __init__(
        self,
        resolve: Callable[[int, str], Any],
        table: dict[int, Any] | None = None,
        kept: dict[int, Any] | None = None,
        found: Callable[[int, Any], None] | None = None,
        files: bool = False,
    ):
        self.table: dict[int, Any] = {} if table is None else table
        self.resolve = resolve
        self.kept = kept if kept is not None else {}
        self.found = found
        self.files = files  #: whether files (``{"file": ...}``) may come: a call's arguments, host side

    def __call__(self, data: Any, depth: int = 0) -> Any:
        if depth > MAX_NESTING:
            raise ValueError(f"a value nested more than {MAX_NESTING} levels deep cannot be passed")
        if type(data) in _SCALARS:
            return data
        if type(data) is not dict:  # a list only ever comes inside a form, never as a value
            raise ValueError("malformed value")
        try:
            return self._form(data, depth)
        except (KeyError, TypeError, IndexError):
            raise ValueError("malformed value") from None

    def _form(self, data: dict, depth: int) -> Any:
        if "@" in data:
            return self.table[int(data["@"])]
        if "k" in data:
            return self.kept[int(data["k"])]
        if "T" in data:
            return tuple(self(item, depth + 1) for item in _items(data["T"]))
        if "F" in data:
            return frozenset(self(item, depth + 1) for item in _items(data["F"]))
        if "O" in data:
            return self.resolve(int(data["O"]), str(data.get("t", "object")))
        if "file" in data and self.files:  # only ever in a call's arguments, on the host's side
            return _place_file(data["file"], data.get("data", ""))
        if "R" in data:  # only ever in a call's arguments: the host's own generator with that state
            generator = random.Random()
            _set_generator_state(generator, data.get("s"))
            self.table[int(data["R"])] = generator
            return generator
        if "K" in data:
            value: Any = _KINDS[str(data["t"])]()
            number = int(data["K"])
            self.kept[number] = value
            if self.found is not None:
                self.found(number, value)
            self.fill(value, data["v"], depth)
            return value
        for tag, kind in _KINDS.items():
            if tag in data:
                value = kind()
                self.table[int(data[tag])] = value
                self.fill(value, data["v"], depth)
                return value
        raise ValueError("malformed value")

    def fill(self, target: Any, contents: Any, depth: int = 0) -> None:
        """Put decoded ``contents`` into the list, dict or set ``target``, replacing what it held."""
        items = _items(contents)
        if type(target) is dict:
            pairs = []
            for pair in items:
                key, item = _items(pair)
                pairs.append((self(key, depth + 1), self(item, depth + 1)))
            target.clear()
            target.update(pairs)
        elif type(target) is set:
            members = [self(item, depth + 1) for item in items]
            target.clear()
            target.update(members)
        elif type(target) is list:
            target[:] = [self(item, depth + 1) for item in items]
        else:
            raise ValueError("malformed value")


def _items(value: Any) -> list:
    if type(value) is not list:
        raise ValueError("malformed value")
    return value


# --------------------------------------------------------------------------------- host
class Host:
    """The implementation's side: answers requests on the names one implementation defines, keeps
    the objects it made behind numbers, and logs every call for the grader.

    ``implementations`` maps a label to the names an implementation defines (its module's
    namespace). The grader chooses one with :meth:`use`; requests never name it, so the tests'
    side cannot ask for another. Only public names and :data:`SPECIAL_METHODS` are reachable:
    no ``__class__``, ``__dict__``, ``__globals__`` or ``__code__``. ``seed`` makes ``random``
    draw the same numbers for every implementation in every test (see :meth:`begin`)."""

    def __init__(self, implementations: dict[str, dict[str, Any]], exported: tuple[str, ...], seed: str = ""):
        self.implementations = implementations
        self.exported = exported
        self.seed = seed
        self.current: dict[str, Any] = {}
        self.log: list[dict[str, Any]] = []
        self.test = ""
        self._reset(0, 0)

    def _reset(self, made: int, kept: int) -> None:
        self.objects: dict[int, Any] = {}
        self.made = made
        self.containers: dict[int, Any] = {}  #: kept containers by number
        self.container_ids: dict[int, int] = {}  #: id() of each kept container -> its number
        self.snapshots: dict[int, str] = {}  #: what both sides last agreed each one holds
        self.next_kept = kept

    # the grader's requests
    def use(self, label: str) -> None:
        """Answer for the implementation ``label`` from now on; forget every object made so far."""
        self.current = self.implementations[label]
        self.log, self.test = [], ""
        self._reset(0, 0)

    def begin(self, test: str, made: int = 0, kept: int = 0) -> dict[str, int]:
        """Calls from now on belong to the test ``test`` (in the log), and ``random`` starts
        again from that test's seed. The objects and kept containers it makes are numbered from
        ``made`` and ``kept`` at least (where another run of the same test started, when fewer
        tests ran before it here), so a test's requests read the same in every run. Returns how
        many were numbered before it: what :meth:`replay` starts from to answer its calls again."""
        self.test = test
        self.made, self.next_kept = max(self.made, int(made)), max(self.next_kept, int(kept))
        _seed_random(f"{self.seed}:{test}")
        return {"made": self.made, "kept": self.next_kept}

    def calls(self) -> list[dict[str, Any]]:
        return list(self.log)

    def describe(self) -> dict[str, str]:
        """Each exported name's kind ("class" or "function"), the same for every implementation."""
        return {name: "class" if isinstance(self.current.get(name), type) else "function" for name in self.exported}

    def replay(self, runs: list) -> list:
        """Each of ``runs`` (``[test, made, kept, [[request, answer], ...]]``, as answered by another
        implementation) asked again of this one, from the same numbering, up to the first request
        this one answers otherwise: None for a run answered the same throughout, else this one's
        answers up to and with that request (what a run of the test here would be told)."""
        found: list[list[str] | None] = []
        for test, made, kept, pairs in runs:
            self._reset(int(made), int(kept))
            self.log = []
            self.begin(str(test))
            answers: list[str] = []
            for request, answer in pairs:
                got = self.handle(request)
                answers.append(got)
                if got != answer and canonical(got) != canonical(answer):
                    found.append(answers)
                    break
            else:
                found.append(None)
        return found

    # the tests' requests
    def handle(self, text: str) -> str:
        """One request from the tests' side (JSON text) to its answer (JSON text); never raises."""
        printed = _Printed()
        answer: dict[str, Any]
        try:
            request = loads(text)
            if not isinstance(request, dict):
                raise ValueError("a request must be an object")
            op = request.get("op")
            if op not in ("call", "get", "set", "str", "repr", "list"):
                raise ValueError(f"unknown request {op!r}")
            self._receive(request)
            with contextlib.redirect_stdout(printed):
                answer = getattr(self, "_" + op)(request)
        except _Refused as error:
            answer = {"error": {"type": "AttributeError", "message": str(error)}}
        except Exception as error:  # noqa: BLE001 - the implementation's exception goes back to the test
            answer = {"error": {"type": type(error).__name__, "message": _message(error)}}
        if printed.text:
            answer["printed"] = printed.text
        try:
            synced = self._changed()
        except Exception as error:  # noqa: BLE001 - a kept value that can no longer be sent
            synced = []
            answer = {"error": {"type": type(error).__name__, "message": _message(error)}}
        if synced:
            answer["synced"] = synced
        return dumps(answer)

    def _receive(self, request: dict) -> None:
        """What comes with a request: kept containers the test changed or let go, and files."""
        decode = _Decoder(self._resolve, kept=self.containers, found=self._found)
        for pair in _items(request.get("sync", [])):
            number, contents = _items(pair)
            target = self.containers.get(int(number))
            if target is None:
                continue  # one this side already let go: nothing holds it here
            decode.fill(target, contents)
            self.snapshots[int(number)] = dumps(contents)  # with new containers in it: sent back kept
        for number in _items(request.get("drop", [])):
            forgotten = self.containers.pop(int(number), None)
            if forgotten is not None:
                self.container_ids.pop(id(forgotten), None)
                self.snapshots.pop(int(number), None)

    def _found(self, number: int, value: Any) -> None:
        self.container_ids[id(value)] = number
        self.next_kept = max(self.next_kept, number)

    def _register(self, value: Any) -> int:
        self.next_kept += 1
        number = self.next_kept
        self.containers[number] = value
        self.container_ids[id(value)] = number
        return number

    def _kept_encoder(self) -> _Encoder:
        return _Encoder({}, self._keep, self.container_ids, self._register, self._settled)

    def _steady(self, value: Any) -> str:
        """A kept container's contents as both sides record them: the kept containers inside it
        by number, so a change deep inside shows only in the container that holds it."""
        return dumps(_Encoder({}, self._keep, self.container_ids).contents(value))

    def _settled(self, number: int, value: Any) -> None:
        self.snapshots[number] = self._steady(value)

    def _changed(self) -> list:
        """The kept containers whose contents changed since both sides last agreed on them."""
        changed = []
        encode = self._kept_encoder()
        for number in sorted(self.containers):
            target = self.containers.get(number)
            if target is None or self._steady(target) == self.snapshots.get(number):
                continue
            changed.append([number, encode.contents(target)])  # the containers new in it come kept
            self.snapshots[number] = self._steady(target)
        return changed

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
            if first not in self.current:
                raise _Refused(f"no name {first!r} here")
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
        decode = _Decoder(self._resolve, kept=self.containers, found=self._found, files=True)
        args = [decode(a) for a in _items(request.get("args", []))]
        kwargs = {str(k): decode(v) for k, v in (_items(p) for p in _items(request.get("kwargs", [])))}
        entry: dict[str, Any] = {"test": self.test, "name": request.get("name"), "target": request.get("target")}
        self.log.append(entry)
        try:
            value = function(*args, **kwargs)
        except BaseException as error:
            entry["raised"] = type(error).__name__
            if not isinstance(error, Exception):
                raise RuntimeError(f"{type(error).__name__} in the implementation") from None
            raise
        table = {n: obj for n, obj in decode.table.items() if type(obj) in _CONTAINERS}
        encode = _Encoder({id(obj): n for n, obj in table.items()}, self._keep, self.container_ids)
        updates = [[n, encode.contents(obj)] for n, obj in table.items()]
        generators = [[n, _generator_state(g)] for n, g in decode.table.items() if _is_generator(g)]
        encoded = encode(value)
        entry["args"] = _summary(args)
        entry["value"] = _summary(value)
        if isinstance(encoded, dict) and "O" in encoded:
            entry["made"] = encoded["O"]
        if target is not None and not callable(getattr(target, "state", None)):
            entry["state"] = _summary(getattr(target, "state", None))
        answer: dict[str, Any] = {"updates": updates, "value": encoded}
        if generators:
            answer["rng"] = generators
        return answer

    def _get(self, request: dict) -> dict:
        target = self._target(request)
        value = self._named(target, request.get("name"))
        if callable(value) and not isinstance(value, type):
            return {"method": True}
        return {"value": self._kept_encoder()(value)}

    def _set(self, request: dict) -> dict:
        target = self._target(request)
        name = request.get("name")
        if target is None:
            raise _Refused("the tested names cannot be replaced")
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
            raise _Refused(f"{name!r}: only public names can be set")
        [value] = _items(request.get("args", [None]))[:1] or [None]
        setattr(target, name, _Decoder(self._resolve, kept=self.containers, found=self._found)(value))
        return {"value": None}

    def _str(self, request: dict) -> dict:
        return {"value": _ADDRESS.sub(">", str(self._target(request)))}

    def _repr(self, request: dict) -> dict:
        return {"value": _ADDRESS.sub(">", repr(self._target(request)))}

    def _list(self, request: dict) -> dict:
        return {"value": _Encoder({}, self._keep, self.container_ids)(list(self._target(request)))}


#: Where Python's default text for an object (``<lab.HyperMinesGame object at 0x7f...>``) says
#: where it lives in memory: left out, so that the text is the same on every run and every
#: implementation (an address is no behaviour).
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")


class _Refused(Exception):
    """A request for something the tests may not reach."""


class _Printed(io.StringIO):
    """What the implementation prints during one request, cut at :data:`PRINTED_CHARACTERS`."""

    def write(self, text: str) -> int:
        room = PRINTED_CHARACTERS - self.tell()
        if room > 0:
            super().write(str(text)[:room])
        return len(text)

    @property
    def text(self) -> str:
        return self.getvalue()


def _place_file(name: Any, data: Any) -> str:
    """A file that came with a call, written in this side's working folder under a name made of
    its contents (the same on every run, so an answer that shows it reads the same): its path."""
    content = base64.b64decode(str(data).encode("ascii"), validate=True)
    if len(content) > FILE_BYTES:
        raise ValueError("a file passed to the tested code is too large")
    base = os.path.basename(str(name)) or "file"
    if "\x00" in base or base in (".", ".."):
        raise ValueError("malformed value")
    folder = os.path.join(os.getcwd(), "files", hashlib.sha256(content).hexdigest()[:16])
    path = os.path.join(folder, base)
    os.makedirs(folder, exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(content)
    return path


def _seed_random(text: str) -> None:
    """``random`` seeded from ``text``, and each generator made without a seed from then on seeded
    from ``text`` and its number, so what a test draws is the same on every run."""
    random.seed(text)
    _Unseeded.base, _Unseeded.count = text, 0


class _Unseeded:
    """Seeds for generators made without one (``random.Random()``): see :func:`_seed_random`."""

    base = ""
    count = 0
    original = random.Random.seed

    @staticmethod
    def seed(generator: Any, a: Any = None, version: int = 2) -> None:
        if a is None and _Unseeded.base:
            _Unseeded.count += 1
            a = f"{_Unseeded.base}:{_Unseeded.count}"
        _Unseeded.original(generator, a, version)


def deterministic(text: str) -> None:
    """Make this process's randomness repeatable: ``random`` (module and unseeded generators) and
    the operating system's random bytes (``os.urandom``, ``random.SystemRandom``, ``uuid4``,
    ``secrets``) all drawn from ``text`` from now on, again at each :func:`_seed_random`."""
    random.Random.seed = _Unseeded.seed  # type: ignore[method-assign,assignment]  # unseeded: repeatable

    def urandom(size: int) -> bytes:
        return random.getrandbits(8 * size).to_bytes(size, "little") if size > 0 else b""

    os.urandom = urandom
    random._urandom = urandom  # type: ignore[attr-defined]  # what SystemRandom draws from
    _seed_random(text)


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
        self.kept: dict[int, Any] = {}  #: kept containers by number
        self.kept_ids: dict[int, int] = {}  #: id() of each -> its number
        self.snapshots: dict[int, str] = {}
        self.pending: list[int] = []  #: kept containers met in the answer being read
        self.dropping: list[int] = []  #: kept containers let go of, to tell the host
        _REMOTES.append(self)

    def forget(self) -> None:
        """Stop tracking every kept container (a new test starts: what an earlier one read is its
        own); the host is told with the next request."""
        self.dropping += list(self.kept)
        self.kept, self.kept_ids, self.snapshots = {}, {}, {}

    def ask(self, request: dict, args: tuple = (), kwargs: dict | None = None) -> Any:
        self.pending = []
        encode = _Encoder({}, self._reference, self.kept_ids)
        if args or kwargs:
            room = [FILES_BYTES]
            request["args"] = [_file(a, room) or encode(a) for a in args]
            request["kwargs"] = [[k, _file(v, room) or encode(v)] for k, v in (kwargs or {}).items()]
        sync, drop = self._outgoing()
        if sync:
            request["sync"] = sync
        if drop:
            request["drop"] = drop
        try:
            answer = loads(self.send(dumps(request)))
        except (ValueError, RecursionError):
            raise RemoteError("the answer of the tested code could not be read") from None
        if not isinstance(answer, dict):
            raise RemoteError("the answer of the tested code could not be read")
        if isinstance(answer.get("stop"), str):
            raise TestStopped(answer["stop"])
        printed = answer.get("printed")
        if isinstance(printed, str) and printed:
            sys.stdout.write(printed)
        try:
            value = self._take(answer, encode)
        except (ValueError, TypeError, KeyError, IndexError, RecursionError):
            raise RemoteError("the answer of the tested code could not be read") from None
        finally:
            for number in self.pending:  # what both sides now record for the containers it brought
                if number in self.kept:
                    self.snapshots[number] = self._steady(self.kept[number])
        if isinstance(value, _Raised):
            raise value.error
        return value

    def _take(self, answer: dict, encode: _Encoder) -> Any:
        kept = _Decoder(self._object, kept=self.kept, found=self._found)
        for pair in _items(answer.get("synced", [])):
            number, contents = _items(pair)
            target = self.kept.get(int(number))
            if target is not None:
                kept.fill(target, contents)
                self.pending.append(int(number))
        if "error" in answer:
            return _Raised(_exception(answer["error"]))
        decode = _Decoder(self._object, dict(enumerate(encode.alive, start=1)), self.kept, self._found)
        for number, contents in (_items(p) for p in _items(answer.get("updates", []))):
            target = decode.table.get(int(number))
            if type(target) in _CONTAINERS:
                decode.fill(target, contents)
        for number, state in (_items(p) for p in _items(answer.get("rng", []))):
            generator = decode.table.get(int(number))
            if _is_generator(generator):
                _set_generator_state(generator, state)
        if answer.get("method"):
            return _IS_METHOD
        return decode(answer.get("value"))

    def _found(self, number: int, value: Any) -> None:
        """A kept container the host introduced: tracked from now on (its record is made once the
        whole answer is read, see :meth:`ask`)."""
        self.kept[number] = value
        self.kept_ids[id(value)] = number
        self.pending.append(number)

    def _steady(self, value: Any) -> str:
        return dumps(_Encoder({}, self._reference, self.kept_ids).contents(value))

    def _outgoing(self) -> tuple[list, list]:
        """The kept containers the test changed since both sides last agreed on them, then those it
        no longer holds (only this side's own records refer to them)."""
        sync = self._changes()
        drop, self.dropping = self.dropping, []
        while True:
            # held here by ``self.kept`` and by getrefcount's own argument, and by nothing else
            loose = [n for n in self.kept if sys.getrefcount(self.kept[n]) <= 2]
            if not loose:
                break
            for number in loose:
                value = self.kept.pop(number)
                self.kept_ids.pop(id(value), None)
                self.snapshots.pop(number, None)
                del value
                drop.append(number)
        return sync, drop

    def _changes(self) -> list:
        encode = _Encoder({}, self._reference, self.kept_ids)  # one numbering for the whole request
        sync = []
        for number in list(self.kept):
            try:
                text = self._steady(self.kept[number])
                if text != self.snapshots.get(number):
                    sync.append([number, encode.contents(self.kept[number])])
                    self.snapshots[number] = text
            except (TypeError, ValueError):
                continue  # something that cannot cross was put in it: the host keeps what it had
        return sync

    def _reference(self, value: Any) -> dict:
        number = _REFERENCES.get(id(value))
        if number is None or number[0] is not value:
            raise TypeError(
                f"a {type(value).__name__} cannot be passed to the tested code here: pass numbers, strings, "
                "lists, tuples, dicts, sets, random generators and the objects the tested code made"
            )
        return {"O": number[1], "t": type(value).__name__[:80]}

    def _object(self, number: int, type_name: str) -> Any:
        cls = self.classes.get(type_name)
        if cls is None:
            cls = self.classes[type_name] = _object_class(self, type_name)
        obj: Any = object.__new__(cls)
        _REFERENCES[id(obj)] = (obj, number)
        return obj


def _file(value: Any, room: list[int]) -> dict | None:
    """A string argument that names a file (one the test wrote) as the file itself, its name and
    contents (``{"file": name, "data": base64}``), while ``room[0]`` bytes of a request are left;
    None for any other argument."""
    if type(value) is not str or not value or len(value) > 4096 or "\x00" in value:
        return None
    try:
        if not os.path.isfile(value) or os.path.getsize(value) > min(FILE_BYTES, room[0]):
            return None
        with open(value, "rb") as handle:
            content = handle.read(FILE_BYTES + 1)
    except (OSError, ValueError):
        return None
    room[0] -= len(content)
    return {"file": os.path.basename(value)[:255], "data": base64.b64encode(content).decode("ascii")}


class _Raised:
    """The implementation's exception, raised once the rest of its answer is taken in."""

    def __init__(self, error: BaseException):
        self.error = error


#: Every tests' side made here (:func:`forget`).
_REMOTES: list[_Remote] = []


def forget() -> None:
    """A new test starts: the attributes earlier tests read are no longer kept in step."""
    for remote in _REMOTES:
        remote.forget()


def request_key(text: str) -> str:
    """A request as runs of the same test are compared: without what it tells of containers the
    test let go of, which depends on what earlier tests left behind."""
    if '"drop":' not in text:
        return text
    try:
        request = loads(text)
    except (ValueError, RecursionError):
        return text
    if isinstance(request, dict):
        request.pop("drop", None)
        return dumps(request)
    return text


#: What a read of a method answers: the stand-in makes a method that calls the host's.
_IS_METHOD = object()
#: Each stand-in object's host number, by id (kept out of the object, which has no attributes).
_REFERENCES: dict[int, tuple[Any, int]] = {}


def _exception(error: Any) -> BaseException:
    if not isinstance(error, dict):
        return RemoteError("the tested code failed")
    name, message = str(error.get("type", "Exception"))[:80], str(error.get("message", ""))[:2000]
    kind = getattr(builtins, name, None)
    if isinstance(kind, type) and issubclass(kind, Exception):
        try:
            return kind(message)
        except Exception:  # noqa: BLE001 - an exception type that wants other arguments
            pass
    if not name.isidentifier():
        name = "RemoteError"
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
    class's static and class methods (``MineField.random(...)``, ``HyperMinesGame.from_dict(...)``)."""

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


def bind(namespace: dict[str, Any], kinds: dict[str, str], module: str = "lab") -> types.ModuleType:
    """Put a stand-in for every tested name into ``namespace`` (a module's globals, or the
    builtins, where a notebook's tests find names they never imported), answering through
    :data:`channel`; the module of stand-ins is returned."""
    if channel is None:
        raise RuntimeError("no host to answer: the tests must run in the grader's sandbox")
    stand = stand_ins(channel, kinds, module)
    for name in kinds:
        namespace[name] = getattr(stand, name)
    return stand
