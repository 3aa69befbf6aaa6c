"""Runs a wasm32-wasip1 program under wasmtime: cargo's runner for the
golden checks built for wasm32-wasip1 (`cargo xtask test` sets
CARGO_TARGET_WASM32_WASIP1_RUNNER to this script under the virtualenv
that holds the pinned `wasmtime` package; xtask/src/wasi.rs).

Usage: run.py PROGRAM.wasm [ARGS...]. The program sees its arguments, the
environment and the standard streams, and nothing of the file system; its
exit status is this script's.
"""

import sys

from wasmtime import Engine, ExitTrap, Linker, Module, Store, WasiConfig


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: run.py PROGRAM.wasm [ARGS...]", file=sys.stderr)
        return 2
    program = argv[1]
    engine = Engine()
    module = Module.from_file(engine, program)
    linker = Linker(engine)
    linker.define_wasi()
    store = Store(engine)
    wasi = WasiConfig()
    wasi.argv = [program, *argv[2:]]
    wasi.inherit_env()
    wasi.inherit_stdin()
    wasi.inherit_stdout()
    wasi.inherit_stderr()
    store.set_wasi(wasi)
    instance = linker.instantiate(store, module)
    try:
        instance.exports(store)["_start"](store)
    except ExitTrap as exit_trap:
        return exit_trap.code
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
