"""Candidate evaluation spread over many GPUs with Ray (`pip install kernelpro[ray]`).

`kernelpro optimize --workers auto|N|ray://HOST:PORT`: one Ray actor per GPU (`num_gpus=1`), each
wrapping the same GPU runtime as the single-GPU path (evaluator.GpuEvaluator and its worker process,
which the actor kills on a hang or a crash); compilation and the static profile run as Ray CPU tasks.
Nothing here imports Ray until a backend is started, so kernelpro works without it.

- workers.py: the `--workers` value, the GPU-model choice, importing Ray with a clear message
- actor.py: the actor (one GPU, the runtime per kernel)
- backend.py: the driver side (start or join Ray, the actors, the queue, results as futures)
- local.py: the local instance: loopback only, token authentication with a fresh token
"""
