"""KernelPro."""
