#!/usr/bin/env bash
# Session 36, call A: session 35's call C (which never ran), its logs named call-a, and its H200
# small matrix run on main (v54), not on the unlanded v55.
CALL=call-a MATRIX_LIB=v54 exec bash docs/device-runs/2026-12-07-s35/call-c.sh
