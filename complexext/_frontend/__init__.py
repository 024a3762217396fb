"""Argument handling of the public functions: torch's signatures, defaults,
dtype and device rules and checks, over the differentiable dispatchers of
complexext._autograd. One module per family (fft, stft, conv) and the
overflow check they share."""
