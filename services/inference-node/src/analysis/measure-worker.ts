/** Worker-thread entry of clip-measurements.ts: measures one clip at a time. */
import { serveWorker } from '../engines/workers/worker-runtime.js';
import { runMeasureWork, type MeasureResult, type MeasureWork } from './clip-measurements.js';

serveWorker<MeasureWork, MeasureResult>(() => (work) => ({ result: runMeasureWork(work) }));
