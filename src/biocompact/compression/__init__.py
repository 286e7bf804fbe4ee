"""Compression of fine-tuned models for deployment: PyTorch dynamic int8 quantisation and ONNX
export run with ONNX Runtime, each re-scored on the task's test set and timed on CPU."""
