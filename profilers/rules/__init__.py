"""Built-in static micro-profiling tools. Importing this package registers them."""
from importlib import import_module

MODULES = [
    "spills", "occupancy_rule", "fp64", "coalescing", "vector_loads", "restrict",
    "unroll", "sync_divergence", "bank_conflicts", "tensor_cores", "slow_math", "reduction", "work",
    "reduction_shape", "matmul_reuse",
    "dynamic_ncu",
]

for _m in MODULES:
    try:
        import_module(f"{__name__}.{_m}")
    except ModuleNotFoundError as e:  # a rule module not written yet must not break the others
        if e.name != f"{__name__}.{_m}":
            raise
