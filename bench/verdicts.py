"""The verdict lines bench/compare prints after its tables: one per target
below (W1's in gemm_lines; the gallery's workloads are held to W2's), met or
missed with the ratio that decides it, then the processor and the kernels
topos's dispatcher picked.
"""
import statistics

# (workload, bound on topos Exact's median / the best LibTorch median)
TRAINING_TARGETS = [("W2", 0.8), ("W3", 1 / 30), ("W4", 0.8), ("W5", 0.8), ("W7", 0.8),
                    ("W8", 0.8), ("G1", 0.8), ("G2", 0.8), ("G3", 0.8)]

# (workload, bound on topos Exact's peak resident set / the lowest LibTorch's)
MEMORY_TARGETS = [("W6", 0.5), ("W7", 0.7), ("W8", 0.7)]

# (workload, least fraction of the two-thread float peak that topos Exact's
# step reaches over its products)
PEAK_FRACTION_TARGETS = [("W2", 0.5), ("W8", 0.5)]


def verdict(met):
    return "met" if met else "MISSED"


def median(samples):
    return statistics.median(samples)


def gemm_lines(by_wall):
    """W1: Exact >= 0.9x the faster OpenBLAS at n >= 512 on every thread count;
    the plan (Fast) >= 1.0x. The worst ratio decides."""
    lines = []
    workloads = sorted({w for _, w in by_wall if w[1] >= 512})
    for column, bound, label in (("topos Exact", 0.9, "Exact"), ("topos plan", 1.0, "Fast")):
        ratios = []
        for workload in workloads:
            blas = [median(v) for (c, w), v in by_wall.items()
                    if w == workload and c.startswith("OpenBLAS")]
            if blas and (column, workload) in by_wall:
                ratios.append((median(by_wall[(column, workload)]) / max(blas), workload))
        if not ratios:
            continue
        worst, (element, n, threads) = min(ratios)
        lines.append(f"W1 {label} >= {bound:g}x OpenBLAS at n >= 512: {verdict(worst >= bound)} "
                     f"(worst {worst:.2f}, {element} n={n} t={threads})")
    return lines + bf16_gemm_lines(by_wall)


def bf16_gemm_lines(by_wall):
    """W1 in bf16: Exact >= 1.0x the exact float GEMM, Fast (AVX-512 BF16)
    >= 1.6x, at n = 1024 and 2048 on every thread count; the worst decides."""
    lines = []
    for column, bound in (("bf16 Exact", 1.0), ("bf16 Fast", 1.6)):
        ratios = []
        for (c, (element, n, threads)), samples in by_wall.items():
            float_samples = by_wall.get(("topos Exact", ("float", n, threads)))
            if c == column and float_samples:
                ratios.append((median(samples) / median(float_samples), n, threads))
        if ratios:
            worst, n, threads = min(ratios)
            lines.append(f"W1 {column} >= {bound:g}x float Exact: {verdict(worst >= bound)} "
                         f"(worst {worst:.2f}, n={n} t={threads})")
    return lines


def training_lines(times, fast_plan_is_exact, inexact_services=None):
    """inexact_services: by workload, the services of one Fast step that were
    not exact (workloads_bench's counter), where known."""
    inexact_services = inexact_services or {}
    lines = []
    workloads = sorted({w for _, w in times})
    for prefix, bound in TRAINING_TARGETS:
        for workload in (w for w in workloads if w.startswith(prefix + "_")):
            torch = [median(v) for (c, w), v in times.items()
                     if w == workload and c.startswith("LibTorch")]
            exact = times.get(("topos Exact", workload))
            if not torch or not exact:
                continue
            ratio = median(exact) / min(torch)
            lines.append(f"{prefix} Exact <= {bound:.3g}x LibTorch: {verdict(ratio <= bound)} "
                         f"({ratio:.3g})")
    for workload in workloads:
        exact = times.get(("topos Exact", workload))
        fast = times.get(("topos Fast", workload))
        if exact and fast:
            ratio = median(fast) / median(exact)
            name = workload.split('_')[0]
            if fast_plan_is_exact:
                # Without a reordering backend a Fast plan is the Exact plan:
                # their ratio only measures the noise between two runs.
                lines.append(f"{name} Fast at least as fast as Exact: same plan "
                             f"(no Fast backend in this build; Fast / Exact {ratio:.3g})")
                continue
            if inexact_services.get(workload) == 0:
                # No backend served a step of this workload: the Fast step ran
                # the Exact plan's kernels, so again only noise separates them.
                lines.append(f"{name} Fast at least as fast as Exact: same kernels "
                             f"(no step served by a Fast backend; Fast / Exact {ratio:.3g})")
                continue
            # Fast within 3 % of Exact counts as as fast: the two medians of
            # one plan differ by that much from noise alone.
            lines.append(f"{name} Fast at least as fast as Exact: "
                         f"{verdict(ratio <= 1.03)} (Fast / Exact {ratio:.3g})")
    return lines


def memory_lines(peaks):
    """peaks: {(column, workload): [MiB]}."""
    lines = []
    for workload, bound in MEMORY_TARGETS:
        torch = [median(v) for (c, w), v in peaks.items()
                 if w == workload and c.startswith("LibTorch")]
        exact = peaks.get(("topos Exact", workload))
        if torch and exact:
            ratio = median(exact) / min(torch)
            lines.append(f"{workload} peak memory <= {bound:g}x LibTorch: "
                         f"{verdict(ratio <= bound)} ({ratio:.2f})")
    return lines


def peak_fraction_lines(times, product_flops, peak_gflops):
    """product_flops: by workload name, one step's product FLOPs; peak_gflops:
    {"float, 2 threads": GFLOP/s} where measured."""
    peak = peak_gflops.get("float, 2 threads")
    lines = []
    for prefix, bound in PEAK_FRACTION_TARGETS:
        for workload, flops in product_flops.items():
            exact = times.get(("topos Exact", workload))
            if peak and exact and workload.startswith(prefix + "_"):
                fraction = flops / (median(exact) * 1e-3) * 1e-9 / peak
                lines.append(f"{prefix} Exact >= {bound:.0%} of the two-thread float peak: "
                             f"{verdict(fraction >= bound)} ({fraction:.0%})")
    return lines


def processor():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            text = cpuinfo.read()
    except OSError:
        return "unknown processor"
    model = next((line.split(":", 1)[1].strip() for line in text.splitlines()
                  if line.startswith("model name")), "unknown model")
    flags = next((line.split(":", 1)[1].split() for line in text.splitlines()
                  if line.startswith("flags")), [])
    sets = [name for name in ("avx2", "fma", "avx512f", "avx512_bf16", "amx_tile")
            if name in flags]
    cpus = sum(1 for line in text.splitlines() if line.startswith("processor"))
    return f"{model}; {cpus} logical CPUs; {' '.join(sets)}"


def print_verdicts(by_wall, times, peaks, context, inexact_services=None, product_flops=None,
                   peak_gflops=None):
    kernels = context.get('topos_kernels', '')
    fast_plan_is_exact = "Fast backends none" in kernels
    lines = (gemm_lines(by_wall or {}) +
             training_lines(times or {}, fast_plan_is_exact, inexact_services) +
             memory_lines(peaks or {}) +
             peak_fraction_lines(times or {}, product_flops or {}, peak_gflops or {}))
    print("\n## Verdicts\n")
    for line in lines:
        print(line)
    print(f"\nprocessor: {processor()}")
    print(f"topos kernels: {context.get('topos_kernels', 'not reported (no topos run)')}")
