// Video clips: the view from one step to another, played at the chosen
// speed and recorded from the canvas by the browser's MediaRecorder as a
// WebM file, for sharing a pass or a crash with anyone (no skidpad
// needed to watch it). What is recorded is what the page draws; the
// overlays (standings, labels) are HTML and not in the picture.

/** Frames a second captured from the canvas. */
const FPS = 30;

/** The best WebM codec this browser records. */
function webmType() {
  for (const type of ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm']) {
    if (MediaRecorder.isTypeSupported(type)) return type;
  }
  return null;
}

/**
 * Records `canvas` while `play()` runs the view from the clip's start to
 * its end (it resolves when the end is drawn); resolves to the WebM
 * bytes as a Blob.
 */
export async function recordVideo(canvas, play) {
  const type = webmType();
  if (!type || typeof canvas.captureStream !== 'function') {
    throw new Error('this browser cannot record the view (no MediaRecorder with WebM)');
  }
  const stream = canvas.captureStream(FPS);
  const recorder = new MediaRecorder(stream, { mimeType: type });
  const chunks = [];
  recorder.ondataavailable = (e) => {
    if (e.data.size > 0) chunks.push(e.data);
  };
  const stopped = new Promise((resolve) => (recorder.onstop = resolve));
  recorder.start(250);
  try {
    await play();
  } finally {
    recorder.stop();
    for (const track of stream.getTracks()) track.stop();
  }
  await stopped;
  return new Blob(chunks, { type: 'video/webm' });
}
