// biome-ignore lint/suspicious/noExplicitAny: events are checked field by field
type Json = any;

/** The JSON lines of a watch response, one event at a time. */
export class EventStream {
  readonly response: Response;
  readonly #abort: AbortController;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buf = '';

  private constructor(response: Response, abort: AbortController) {
    this.response = response;
    this.#abort = abort;
    this.#reader = (response.body as ReadableStream<Uint8Array>).getReader();
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<EventStream> {
    const abort = new AbortController();
    const res = await fetch(url, { headers, signal: abort.signal });
    return new EventStream(res, abort);
  }

  /** The next event, or undefined when the stream ended. */
  async next(): Promise<Json | undefined> {
    for (;;) {
      const nl = this.#buf.indexOf('\n');
      if (nl >= 0) {
        const line = this.#buf.slice(0, nl);
        this.#buf = this.#buf.slice(nl + 1);
        if (line.trim()) return JSON.parse(line);
        continue;
      }
      const { done, value } = await this.#reader.read();
      if (done) {
        if (this.#buf.trim()) throw new Error(`unterminated event: ${this.#buf}`);
        return undefined;
      }
      this.#buf += this.#decoder.decode(value, { stream: true });
    }
  }

  /** Every remaining event until the server ends the stream. */
  async rest(): Promise<Json[]> {
    const out: Json[] = [];
    for (let ev = await this.next(); ev !== undefined; ev = await this.next()) out.push(ev);
    return out;
  }

  close(): void {
    this.#abort.abort();
  }
}
