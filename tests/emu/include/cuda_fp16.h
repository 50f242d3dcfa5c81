// kp_emu stub: the emulator header provides what tests use
