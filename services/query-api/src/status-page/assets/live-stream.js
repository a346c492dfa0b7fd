// Live trades of one instrument from the API's Server-Sent Events stream (/v1/stream). EventSource
// cannot send a header, and the key must not go in the URL, so the stream is read with fetch and
// parsed here. A dropped connection is retried with a growing delay, a bounded number of times; after
// that the page falls back to polling (onState('down')).

const RETRY_DELAYS_MS = [1000, 2000, 4000, 8000, 15_000];
/** An event larger than this is not one the API sends: the stream is treated as broken. */
const MAX_BUFFER_CHARS = 1_000_000;

/**
 * Opens the stream and keeps it open until close(). onTrade(record) gets each trade; onState(state)
 * hears 'live' (attached), 'retrying', 'down' (gave up), and 'lost' when events were dropped
 * (the page refreshes from the API then).
 */
export function openLiveStream(api, securityId, { onTrade, onState }) {
  const controller = new AbortController();
  let failures = 0;
  let closed = false;

  const handle = (block) => {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (!event || data === undefined) return;
    if (event === 'ready') {
      failures = 0;
      onState('live');
    } else if (event === 'trades') {
      const record = JSON.parse(data);
      if (record.securityId === securityId) onTrade(record);
    } else if (event === 'dropped') onState('lost');
    else if (event === 'end') onState('down');
  };

  async function readOnce() {
    const response = await api.send(`/v1/stream?securityIds=${securityId}&kinds=trades`, {
      accept: 'text/event-stream',
      signal: controller.signal,
    });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        handle(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
      }
      if (buffer.length > MAX_BUFFER_CHARS) throw new Error('stream event too large');
    }
  }

  (async () => {
    while (!closed && failures < RETRY_DELAYS_MS.length) {
      try {
        await readOnce();
      } catch (error) {
        if (closed) return;
        if (error.auth) return onState('down');
      }
      if (closed) return;
      onState('retrying');
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[failures]));
      failures += 1;
    }
    if (!closed) onState('down');
  })();

  return {
    close() {
      closed = true;
      controller.abort();
    },
  };
}
