"""Calibration: find the table in the image, map pixels to table millimetres, meter the light.

Not built yet (issue 4).
"""
