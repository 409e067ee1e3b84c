"""``device-types check`` against the labelled candle corpus (issue 7's per-function targets).

One check run (``candle_check``, with ``--enable device-host-sync``) serves every assertion.
A function is *flagged* when a finding of any code but ``device-host-sync`` names it (path and
function); only labelled functions count towards precision.
"""

from __future__ import annotations

from tests.check.candle_corpus import CheckRun, Label

RECALL = 0.95
PRECISION = 0.95
HOST_SYNC_RECALL = 0.9
MAX_LINES_PER_FALLBACK = 2


def _listing(keys, labels: dict[tuple[str, str], Label], flagged: dict | None = None) -> str:
    lines = []
    for key in sorted(keys):
        label = labels[key]
        lines.append(f"  {label.path}: {label.function} [{label.label}] {label.why}")
        for finding in (flagged or {}).get(key, [])[:2]:
            lines.append(f"      line {finding['line']}: {finding['message']} [{finding['code']}]")
    return "\n".join(lines)


def test_fallback_recall_and_precision(candle_check: CheckRun, labels: dict[tuple[str, str], Label]) -> None:
    flagged = candle_check.by_function(host_sync=False)
    fallbacks = {k for k, v in labels.items() if v.label == "fallback"}
    not_fallbacks = {k for k, v in labels.items() if v.label != "fallback"}
    found = fallbacks & flagged.keys()
    missed = fallbacks - found
    false_positives = not_fallbacks & flagged.keys()
    recall = len(found) / len(fallbacks)
    precision = len(found) / max(len(found) + len(false_positives), 1)
    report = (f"recall {recall:.3f} ({len(found)}/{len(fallbacks)}), precision {precision:.3f} "
              f"({len(found)}/{len(found) + len(false_positives)})\n"
              f"missed fallbacks ({len(missed)}):\n{_listing(missed, labels)}\n"
              f"flagged but not fallbacks ({len(false_positives)}):\n{_listing(false_positives, labels, flagged)}")
    assert recall >= RECALL and precision >= PRECISION, report


def test_host_syncs_are_not_fallbacks_and_are_reported_opt_in(
        candle_check: CheckRun, labels: dict[tuple[str, str], Label]) -> None:
    host_syncs = {k for k, v in labels.items() if v.label == "host-sync"}
    as_fallback = host_syncs & candle_check.by_function(host_sync=False).keys()
    reported = host_syncs & candle_check.by_function(host_sync=True).keys()
    recall = len(reported) / len(host_syncs)
    assert not as_fallback, f"host-syncs reported as fallbacks:\n{_listing(as_fallback, labels, candle_check.by_function(host_sync=False))}"
    assert recall >= HOST_SYNC_RECALL, (
        f"device-host-sync recall {recall:.3f} ({len(reported)}/{len(host_syncs)}); not reported:\n"
        f"{_listing(host_syncs - reported, labels)}")


def test_at_most_two_lines_per_true_fallback(candle_check: CheckRun, labels: dict[tuple[str, str], Label]) -> None:
    flagged = candle_check.by_function(host_sync=False)
    noisy = {k: v for k, v in flagged.items()
             if k in labels and labels[k].label == "fallback" and len(v) > MAX_LINES_PER_FALLBACK}
    assert not noisy, "more than two finding lines for one fallback function:\n" + "\n".join(
        f"  {path}: {function}: " + "; ".join(f"{f['line']}:{f['code']}" for f in findings)
        for (path, function), findings in sorted(noisy.items()))


def test_findings_name_the_backend_and_the_chain_of_indirect_fallbacks(
        candle_check: CheckRun, labels: dict[tuple[str, str], Label]) -> None:
    wrong_backend = [f for f in candle_check.findings if f["backend"] not in ("mps", "cuda", "npu")]
    assert not wrong_backend, wrong_backend[:5]
    flagged = candle_check.by_function(host_sync=False)
    indirect = [k for k, v in labels.items() if v.label == "fallback" and v.why.startswith("indirect:")]
    without_chain = [k for k in indirect if k in flagged and not any(len(f["chain"]) > 1 for f in flagged[k])]
    assert not without_chain, "indirect fallbacks reported without the chain to their root:\n" + _listing(
        without_chain, labels, flagged)
