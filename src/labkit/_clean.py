"""The interpreter state every lab run starts from: captured before any learner code runs, put back after each run.

A run may change anything Python lets it change; the next run must not notice. Put back, using only references
taken at capture (a function's globals, and even `len`, are looked up when it is called, so builtins come first):
- builtins, and the top-level names of every module loaded at capture (labkit's own and the modules it uses first,
  with labkit's classes and functions); modules imported since are dropped, so the next run imports them afresh;
- sys: its lists and dicts (path, meta_path, path_hooks, path_importer_cache, modules), the recursion limit, the
  int-to-str digit limit, tracing, profiling and sys.monitoring tools; warnings filters; gc's switch, thresholds
  and callbacks; the SIGINT handler (it is what Stop raises);
- os.environ, the working directory, logging's root logger and registry, `random`'s seed (a fresh one, like a new
  interpreter), and in each scratch folder every entry created since capture (removed);
- packages the page loads (NumPy), adopted into the clean state once imported, before any learner code: kept
  imported (NumPy cannot be imported twice in one interpreter), their top-level names put back, and NumPy's global
  settings: np.seterr and np.seterrcall, np.set_printoptions, and the legacy np.random seed (a fresh one).
Not put back: attributes of other modules' classes and objects changed in place (say `json.JSONEncoder.default`),
which only code reaching into the standard library on purpose changes; a page reload starts from scratch.
"""

from __future__ import annotations

import builtins
import gc
import os
import random
import shutil
import signal
import sys
import types
import warnings
from collections.abc import Callable, Iterable, Sequence

_MISSING = object()
_TOOL_IDS = range(6)  # sys.monitoring's tool ids


def _dict_job(live: dict) -> tuple:
    """What putting live back needs, as bound methods taken now: (update, saved, size, count, live, pop)."""
    saved = dict(live)
    return (live.update, saved, live.__len__, len(saved), live, live.pop)


def _list_job(live: list) -> tuple:
    """(live, saved): the list object and its contents now."""
    return (live, list(live))


def _labkit_parts(modules: Iterable[types.ModuleType]) -> tuple[list[type], list[types.FunctionType]]:
    """labkit's classes and functions (module level and methods), found in its modules."""
    classes: list[type] = []
    functions: list[types.FunctionType] = []
    for module in modules:
        for value in vars(module).values():
            if isinstance(value, type) and str(value.__module__).startswith("labkit"):
                classes.append(value)
                functions += [f for f in vars(value).values() if isinstance(f, types.FunctionType)]
            elif isinstance(value, types.FunctionType) and str(value.__module__).startswith("labkit"):
                functions.append(value)
    return classes, functions


def _is_labkit(name: str) -> bool:
    """Whether a module name is labkit or one of its modules."""
    return name == "labkit" or name.startswith("labkit.")


def _remove_new_entries(folder: str, before: frozenset[str]) -> None:
    """Remove what was created in folder since `before` was listed."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if name in before:
            continue
        path = os.path.join(folder, name)
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
        except OSError:
            pass  # something the run made undeletable stays; nothing else depends on it


class Baseline:
    """A captured clean state: guarded() runs the learner's code and puts the core back, settle() all the rest.

    drop(caught) lets go of the last run's names and of the locals in caught's frames; restore_rest() puts back the
    modules outside the core (before a report is made with them); adopt_path(entry) adds entry to the clean sys.path.
    """

    def __init__(self, *, scratch: Sequence[str] = ()) -> None:
        """Capture now: call before any learner code runs. scratch: folders whose new entries each settle removes."""
        self.guarded, self.drop, self.restore_rest, self.settle, self.adopt_path, self.adopt_modules = \
            _capture(scratch)


def _capture(scratch: Sequence[str]) -> tuple[Callable, ...]:
    """Take the clean state; return the closures that put it back (they reach nothing through globals)."""
    modules = sys.modules
    own, core_dicts, rest_dicts = _module_dicts(modules)
    lists = [_list_job(x) for x in (sys.path, sys.meta_path, sys.path_hooks, warnings.filters, gc.callbacks)]
    restore_labkit = _labkit_restorer(own)

    set_recursion_limit, limit = sys.setrecursionlimit, sys.getrecursionlimit()
    restore_settings = _settings_restorer()

    put_back = _dict_restorer()
    restore_environment = _environment_restorer(scratch, modules, put_back)
    keyboard_interrupt = KeyboardInterrupt
    namespaces: list[dict] = []  # the last run's, until settle clears it

    def restore_core() -> None:
        """Builtins, labkit and what it uses, sys: everything a result is made with."""
        set_recursion_limit(limit)  # first: the run may have left a limit lower than where this stands
        put_back(core_dicts)
        restore_labkit()
        for live, saved in lists:
            live[:] = saved
        restore_settings()

    def restore_core_fully() -> None:
        """restore_core, again if a Stop lands in it (the learner's code has ended; Stop has nothing left to stop)."""
        while True:
            try:
                restore_core()
                return
            except keyboard_interrupt:
                continue

    guarded, drop_learner_data = _run_guard(namespaces, restore_core_fully)

    def restore_rest() -> None:
        """Every other module's top-level names (a report uses modules beyond the core)."""
        put_back(rest_dicts)

    def settle() -> None:
        """Put everything back: between runs, off the path from Run to the result."""
        drop_learner_data(None)
        while True:
            try:
                restore_core()
                put_back(rest_dicts)
                restore_environment()
                for restore in package_jobs:
                    restore()
                return
            except keyboard_interrupt:
                continue

    def adopt_path(entry: str) -> None:
        """Make entry part of the clean sys.path (the full stdlib, once it is mounted)."""
        for live, saved in lists:
            if live is sys.path and entry not in saved:
                saved.append(entry)
                live.append(entry)

    package_jobs: list[Callable[[], None]] = []
    host = modules.get("__main__")

    def adopt_modules() -> None:
        """Make every module imported since capture part of the clean state: call it settled, right after importing
        the page's packages (the worker does, before any learner code runs), so nothing a run left is adopted."""
        known = {id(job[4]) for job in rest_dicts} | {id(job[4]) for job in core_dicts}
        for i, job in enumerate(core_dicts):
            if job[4] is modules or job[4] is sys.path_importer_cache:
                core_dicts[i] = _dict_job(job[4])
        for module in list(modules.values()):
            if isinstance(module, types.ModuleType) and module is not host and id(vars(module)) not in known:
                rest_dicts.append(_dict_job(vars(module)))
        numpy = modules.get("numpy")
        if isinstance(numpy, types.ModuleType) and not package_jobs:
            package_jobs.append(_numpy_state(numpy))

    return guarded, drop_learner_data, restore_rest, settle, adopt_path, adopt_modules


def _numpy_state(np: types.ModuleType) -> Callable[[], None]:
    """What puts NumPy's global settings back as they are now (references taken now, like the rest)."""
    seterr, seterrcall, set_printoptions = np.seterr, np.seterrcall, np.set_printoptions
    errors, errcall, printoptions = np.geterr(), np.geterrcall(), np.get_printoptions()
    reseed = np.random.seed

    def restore() -> None:
        seterr(**errors)
        seterrcall(errcall)
        set_printoptions(**printoptions)
        reseed()  # the legacy np.random.rand() and friends: a fresh seed each run, like `random`

    return restore


def _dict_restorer() -> Callable[[list[tuple]], None]:
    """put_back, a closure of its own (nothing reaches it through a module's names)."""

    def put_back(dicts: list[tuple]) -> None:
        """Put each dict back: saved values in, names added since out (uses no globals and no builtins)."""
        for update, saved, size, count, live, pop in dicts:
            update(saved)
            if size() != count:
                for key in [k for k in live if k not in saved]:
                    pop(key, None)

    return put_back


def _module_dicts(modules: dict) -> tuple[list[types.ModuleType], list[tuple], list[tuple]]:
    """(own, core_dicts, rest_dicts): labkit's modules, and the dict jobs of the core and of every other module."""
    # The host's __main__ is left alone: the worker keeps its runner there, and a run has a __main__ of its own.
    host = modules.get("__main__")
    loaded = [m for m in list(modules.values()) if isinstance(m, types.ModuleType) and m is not host]
    own = [m for name, m in list(modules.items()) if _is_labkit(name) and isinstance(m, types.ModuleType)]
    # The core is what making a run's result touches: builtins, sys, labkit and the modules the rest of labkit
    # names (this module's restore_core uses only callables it captures below, so its imports stay out of it).
    core_modules = {id(sys): sys}
    for module in own:
        core_modules[id(module)] = module
        if module.__name__ == __name__:
            continue
        for value in vars(module).values():
            if isinstance(value, types.ModuleType):
                core_modules[id(value)] = value
    core_modules.pop(id(builtins), None)  # done first, on its own
    core_dicts = [_dict_job(vars(builtins))]
    core_dicts += [_dict_job(vars(m)) for m in core_modules.values()]
    core_dicts += [_dict_job(d) for d in (modules, sys.path_importer_cache)]
    rest_dicts = [_dict_job(vars(m)) for m in loaded if id(m) not in core_modules and m is not builtins]
    return own, core_dicts, rest_dicts


def _labkit_restorer(own: list[types.ModuleType]) -> Callable[[], None]:
    """Take labkit's classes and functions now; return what puts back their attributes, code and defaults."""
    classes, functions = _labkit_parts(own)
    class_jobs = [(cls, dict(vars(cls))) for cls in classes]
    function_jobs = [(f, f.__code__, f.__defaults__, f.__kwdefaults__) for f in functions]

    def restore_labkit() -> None:
        """labkit's classes and functions as they were at capture."""
        for cls, saved in class_jobs:
            live = cls.__dict__
            for key, value in saved.items():
                if live.get(key, _MISSING) is not value:
                    type.__setattr__(cls, key, value)
            if len(live) != len(saved):
                for key in [k for k in live if k not in saved]:
                    type.__delattr__(cls, key)
        for function, code, defaults, kwdefaults in function_jobs:
            if function.__code__ is not code:
                function.__code__ = code
            if function.__defaults__ is not defaults:
                function.__defaults__ = defaults
            if function.__kwdefaults__ is not kwdefaults:
                function.__kwdefaults__ = kwdefaults

    return restore_labkit


def _settings_restorer() -> Callable[[], None]:
    """Take the interpreter's settings now (tracing, profiling, digits, monitoring, gc, SIGINT); return what puts
    them back, warnings' registries starting over."""
    set_trace, set_profile, trace, profile = sys.settrace, sys.setprofile, sys.gettrace(), sys.getprofile()
    set_digits = getattr(sys, "set_int_max_str_digits", None)
    digits = sys.get_int_max_str_digits() if set_digits else 0
    monitoring = getattr(sys, "monitoring", None)
    tools = [(i, monitoring.get_tool(i)) for i in _TOOL_IDS] if monitoring else []
    if monitoring:
        get_tool, set_events, use_tool = monitoring.get_tool, monitoring.set_events, monitoring.use_tool_id
        free_tool = monitoring.free_tool_id
        clear_tool = getattr(monitoring, "clear_tool_id", None)  # 3.14: also drops callbacks and local events
    filters_mutated = getattr(warnings, "_filters_mutated", None) or (lambda: None)
    gc_isenabled, gc_enable, gc_disable, gc_get_threshold, gc_set_threshold = (
        gc.isenabled, gc.enable, gc.disable, gc.get_threshold, gc.set_threshold)
    gc_enabled, gc_threshold = gc_isenabled(), gc_get_threshold()
    get_signal, set_signal, sigint_number = signal.getsignal, signal.signal, signal.SIGINT
    sigint = get_signal(sigint_number)

    def restore_settings() -> None:
        """The settings as they were at capture."""
        filters_mutated()  # the warnings registries of every module start over, as in a new interpreter
        set_trace(trace)
        set_profile(profile)
        if set_digits is not None:
            set_digits(digits)
        for tool, name in tools:
            if get_tool(tool) != name:
                if get_tool(tool) is not None:
                    set_events(tool, 0)
                    if clear_tool is not None:
                        clear_tool(tool)
                    free_tool(tool)
                if name is not None:
                    use_tool(tool, name)
        if gc_isenabled() != gc_enabled:
            (gc_enable if gc_enabled else gc_disable)()
        if gc_get_threshold() != gc_threshold:
            gc_set_threshold(*gc_threshold)
        if get_signal(sigint_number) is not sigint:
            set_signal(sigint_number, sigint)

    return restore_settings


def _environment_restorer(scratch: Sequence[str], modules: dict,
                          put_back: Callable[[list[tuple]], None]) -> Callable[[], None]:
    """Take what the learner reaches through the OS and a few stdlib registries now; return what puts it back."""
    cwd = os.getcwd()
    environ = os.environ
    environ_data = getattr(environ, "_data", None)  # bytes -> bytes: compared without calling back into Python
    environ_saved = dict(environ_data) if environ_data is not None else dict(environ)
    scratch_before = [(folder, frozenset(os.listdir(folder))) for folder in scratch if os.path.isdir(folder)]
    logging = modules.get("logging")
    logging_dicts: list[tuple] = []
    logging_lists: list[tuple] = []
    clear_logging_cache: Callable[[], None] = lambda: None  # noqa: E731
    if isinstance(logging, types.ModuleType) and hasattr(logging, "root"):
        root, manager = logging.root, logging.Logger.manager
        logging_dicts = [_dict_job(vars(root)), _dict_job(vars(manager)), _dict_job(manager.loggerDict)]
        logging_lists = [_list_job(root.handlers), _list_job(root.filters)]
        clear_logging_cache = getattr(manager, "_clear_cache", clear_logging_cache)
    reseed = random.seed

    def restore_environment() -> None:
        """What the learner reaches through the OS and a few stdlib registries."""
        put_back(logging_dicts)
        for live, saved in logging_lists:
            live[:] = saved
        clear_logging_cache()  # loggers cache their effective level
        current = environ_data if environ_data is not None else environ
        if dict(current) != environ_saved:
            if environ_data is not None:
                environ.clear()
                for key, value in environ_saved.items():
                    environ[environ.decodekey(key)] = environ.decodevalue(value)
            else:
                environ.clear()
                environ.update(environ_saved)
        if os.getcwd() != cwd:
            os.chdir(cwd)
        for folder, before in scratch_before:
            _remove_new_entries(folder, before)
        reseed()  # a new interpreter is seeded afresh; so is each run

    return restore_environment


def _run_guard(namespaces: list[dict], restore_core_fully: Callable[[], None]) -> tuple[Callable, Callable]:
    """(guarded, drop_learner_data): the closures around a run of the learner's code."""
    is_instance, base_exception = isinstance, BaseException
    memory_error, frame_type, collect = MemoryError, types.FrameType, gc.collect

    def drop_learner_data(caught: BaseException | None) -> None:
        """Let go of what the last run made: its names, and the locals of the frames its error passed through."""
        while namespaces:
            namespaces.pop().clear()  # finalizers of the learner's objects run now, before the state is put back
        tb = caught.__traceback__.tb_next if caught is not None and caught.__traceback__ is not None else None
        while tb is not None:
            try:
                frame_type.clear(tb.tb_frame)
            except base_exception:
                pass  # a frame that cannot be cleared holds nothing more than it did
            tb = tb.tb_next

    def guarded(body: Callable[[], object], namespace: dict | None) -> BaseException | None:
        """Run body (the learner's code); put the core back; return what it raised, if anything.

        namespace: the run's own globals, emptied by drop (or settle) so the learner's data goes with them.
        """
        if namespace is not None:
            namespaces.append(namespace)
        try:
            body()
        except base_exception as exc:
            caught = exc
        else:
            caught = None
        if caught is not None and is_instance(caught, memory_error):
            drop_learner_data(caught)  # before anything else needs memory
            collect()
        restore_core_fully()
        return caught

    return guarded, drop_learner_data
