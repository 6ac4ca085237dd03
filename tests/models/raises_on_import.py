raise ZeroDivisionError("exploded at import")
