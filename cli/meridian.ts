#!/usr/bin/env -S node --max-semi-space-size=8 --heap-growing-percent=50
import { runCli } from './entry.js';

runCli('meridian', 'telemetry ');
