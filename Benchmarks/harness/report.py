"""The results table: plain text for the terminal, Markdown for BENCHMARKS.md."""

from .common import format_value

HEADERS = ["#", "scenario", "figure", "baseline (same run)", "ratio", "target", "met"]


def cells(row):
    figure = row.status or format_value(row.value, row.unit)
    if row.note and not row.status:
        figure += f" ({row.note})"
    if row.baseline is not None:
        baseline = f"{format_value(row.baseline, row.unit)} {row.baseline_label}".strip()
    else:
        baseline = row.baseline_label or "—"
    ratio = row.ratio()
    if row.target_text:
        target = row.target_text
    elif row.target is not None:
        target = ("≥ " if row.better == "higher" else "≤ ") + format_value(row.target, row.unit)
    else:
        target = "—"
    met = {True: "yes", False: "NO", None: "—"}[row.target_met()]
    return [row.number, row.name, figure, baseline, format_ratio(ratio), target, met]


def format_ratio(ratio):
    if ratio is None:
        return "—"
    if ratio < 0.01:
        return f"1/{1 / ratio:,.0f}×" if ratio > 0 else "0×"
    if ratio < 0.1:
        return f"{ratio:.3f}×"
    return f"{ratio:.0f}×" if ratio >= 100 else f"{ratio:.2f}×"


def ordered(rows):
    return sorted(rows, key=lambda row: int(row.number))


def text_table(rows):
    table = [HEADERS] + [cells(row) for row in ordered(rows)]
    widths = [max(len(line[i]) for line in table) for i in range(len(HEADERS))]
    lines = []
    for index, line in enumerate(table):
        lines.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(line)).rstrip())
        if index == 0:
            lines.append("  ".join("-" * width for width in widths))
    return "\n".join(lines)


def markdown_table(rows):
    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "|".join("---" for _ in HEADERS) + "|"]
    for row in ordered(rows):
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells(row)) + " |")
    return "\n".join(lines)
