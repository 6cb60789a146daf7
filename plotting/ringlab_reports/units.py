"""Byte counts as people read them: binary units, as ringlab's -b/-e options take them."""

UNITS = ((40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB"))


def byte_label(size):
    """8 -> '8 B', 1024 -> '1 KiB', 1536 -> '1.5 KiB', 67108864 -> '64 MiB'."""
    for shift, unit in UNITS:
        if size >= 1 << shift:
            value = size / (1 << shift)
            return f"{value:g} {unit}" if value == int(value) else f"{value:.3g} {unit}"
    return f"{size:g} B"
