/** Recording a reference clip from the microphone (MediaRecorder): start, the seconds so far, stop with the clip. */
import { useEffect, useRef, useState } from 'preact/hooks';

/** The recorder's state and its two actions. */
export interface Recorder {
  readonly recording: boolean;
  /** Whole seconds recorded so far. */
  readonly seconds: number;
  /** Asks for the microphone and starts; throws when it is refused or missing. */
  start(): Promise<void>;
  /** Stops; resolves to the recorded clip. */
  stop(): Promise<File>;
}

/** True when this browser can record audio. */
export function canRecord(): boolean {
  return typeof MediaRecorder !== 'undefined' && typeof navigator.mediaDevices?.getUserMedia === 'function';
}

/** A recorder of the microphone; the tracks are released on stop and when the component goes. */
export function useRecorder(): Recorder {
  const [recording, setRecording] = useState(false);
  const [seconds, setSeconds] = useState(0);
  const recorder = useRef<MediaRecorder | undefined>(undefined);
  const chunks = useRef<Blob[]>([]);
  const timer = useRef<ReturnType<typeof setInterval> | undefined>(undefined);

  const release = () => {
    clearInterval(timer.current);
    recorder.current?.stream.getTracks().forEach((t) => t.stop());
  };
  useEffect(() => release, []);

  return {
    recording,
    seconds,
    async start() {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      const r = new MediaRecorder(stream);
      chunks.current = [];
      r.addEventListener('dataavailable', (e) => {
        if (e.data.size > 0) chunks.current.push(e.data);
      });
      r.start(250);
      recorder.current = r;
      const began = Date.now();
      setSeconds(0);
      timer.current = setInterval(() => setSeconds(Math.floor((Date.now() - began) / 1000)), 500);
      setRecording(true);
    },
    stop() {
      const r = recorder.current;
      if (!r) return Promise.reject(new Error('Not recording.'));
      return new Promise<File>((resolve) => {
        r.addEventListener(
          'stop',
          () => {
            release();
            recorder.current = undefined;
            setRecording(false);
            const type = r.mimeType || 'audio/webm';
            resolve(new File(chunks.current, `recording.${type.includes('ogg') ? 'ogg' : 'webm'}`, { type }));
          },
          { once: true },
        );
        r.stop();
      });
    },
  };
}
