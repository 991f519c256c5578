"""Vision: detect balls and pins in frames with the project's own YOLO model (ONNX Runtime).

Not built yet.
"""
