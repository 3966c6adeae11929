/** Jobs: the API family (owned by a key) and the web family (job tokens), their audio and captions. */
import { getJob } from './getJob.js';
import { getJobAudio } from './getJobAudio.js';
import { getJobCaptions } from './getJobCaptions.js';
import { getWebConfig } from './getWebConfig.js';
import { getWebJob } from './getWebJob.js';
import { getWebJobAudio } from './getWebJobAudio.js';
import { getWebJobCaptions } from './getWebJobCaptions.js';
import { listWebJobEvents } from './listWebJobEvents.js';
import { listWebJobs } from './listWebJobs.js';
import { submitJob } from './submitJob.js';
import { submitWebJob } from './submitWebJob.js';

/** The handlers of this room, keyed by operationId. */
export const JOBS_HANDLERS = {
  submitJob,
  getJob,
  getJobAudio,
  submitWebJob,
  listWebJobs,
  getWebJob,
  listWebJobEvents,
  getWebJobAudio,
  getWebConfig,
  getJobCaptions,
  getWebJobCaptions,
} as const;
