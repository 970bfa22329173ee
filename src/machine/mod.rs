//! The per-task state machine. I/O-free: the caller passes `now` and performs the actions it asks for.
