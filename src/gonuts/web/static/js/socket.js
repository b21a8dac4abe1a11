// One WebSocket per table (docs/protocol.md "Live play"), reconnecting with back-off.

export class TableSocket {
  /**
   * @param {string} tableId
   * @param {{token: string|null, lang: string, onMessage: (msg: any) => void,
   *          onStatus?: (status: "open"|"closed"|"fatal") => void}} options
   */
  constructor(tableId, options) {
    this.tableId = tableId;
    this.options = options;
    this.ws = null;
    this.closed = false;
    this.retry = 0;
    this.counter = 0;
    // Action ids must be unique for the seat across page loads: the server answers a repeated
    // id with its first acknowledgement (idempotent retries), so a reloaded page that restarted
    // at "a1" would never see its new actions applied.
    const bytes = new Uint8Array(6);
    crypto.getRandomValues(bytes);
    this.prefix = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    this.connect();
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws/tables/${encodeURIComponent(this.tableId)}`);
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.retry = 0;
      ws.send(JSON.stringify({ type: "hello", token: this.options.token, lang: this.options.lang }));
      this.options.onStatus?.("open");
    });
    ws.addEventListener("message", (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      this.options.onMessage(msg);
    });
    ws.addEventListener("close", (event) => {
      if (this.closed) return;
      if (event.code === 4403 || event.code === 4404) {
        this.options.onStatus?.("fatal");
        return;
      }
      this.options.onStatus?.("closed");
      const delay = Math.min(8000, 500 * 2 ** this.retry++);
      setTimeout(() => !this.closed && this.connect(), delay);
    });
  }

  send(message) {
    if (this.ws?.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  /** Send an action; returns its id (echoed in the `ack` / `error`). */
  act(action) {
    const id = `${this.prefix}-${++this.counter}`;
    this.send({ type: "act", action, id });
    return id;
  }

  close() {
    this.closed = true;
    this.ws?.close();
  }
}
