#!/usr/bin/env bash
# Session 37, call A: session 36's call A as it stands (which runs session 35's call C with
# CALL=call-a, MATRIX_LIB=v54), on binaries rebuilt this session (README).
exec bash docs/device-runs/2026-12-07-s36/call-a.sh
