/** Version of the platform and of its interface description (OpenAPI info.version). */
export const VERSION = '0.5.1';
/** Name the platform reports in health and version answers. */
export const SERVICE_NAME = 'tts-platform';
