import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that can lose one COMMIT's answer: when
 * armed, the next `COMMIT` a client sends (a simple query, or parsed with the
 * extended protocol) reaches the server, the answers to what the client sent
 * before it are passed on, the server's whole answer to it is awaited (the
 * transaction is then committed) and thrown away, and both sockets are
 * closed, so the client sees its connection die during COMMIT although the
 * commit happened (pitfall P6).
 * Only for plain-text connections (no SSL), which is what the tests use.
 */
export interface PgProxy {
  /** `url` with its host and port replaced by the proxy's. */
  url(url: string): string;
  /** Loses the answer to the next COMMIT; resolves once it was lost. */
  /** Drops the answer to the next COMMIT and both connections. */
  loseNextCommitAnswer(): Promise<void>;
  /**
   * The next COMMIT never reaches PostgreSQL: the client's connection is closed as it sends it, and
   * PostgreSQL's is kept open, its session idle in the transaction (as when the network fails between
   * them), until something ends it.
   */
  withholdNextCommit(): Promise<void>;
  close(): Promise<void>;
}

/** Whether a Query ('Q') or Parse ('P') message's statement is COMMIT. */
function isCommit(type: string, body: Buffer): boolean {
  if (type === 'Q') return /^\s*COMMIT\s*;?\s*$/i.test(body.subarray(0, body.length - 1).toString('utf8'));
  const nameEnd = body.indexOf(0);
  return /^\s*COMMIT\s*;?\s*$/i.test(body.subarray(nameEnd + 1, body.indexOf(0, nameEnd + 1)).toString('utf8'));
}

export async function startPgProxy(target: { host: string; port: number }): Promise<PgProxy> {
  const sockets = new Set<Socket>();
  let armed: (() => void) | null = null;
  let withholding: (() => void) | null = null;
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
    client.on('error', closeBoth);
    upstream.on('error', closeBoth);
    // A withheld COMMIT keeps PostgreSQL's side open (its session idle in the transaction) after the client's closed.
    client.on('close', () => {
      if (!cut) closeBoth();
    });
    upstream.on('close', closeBoth);

    let pending = Buffer.alloc(0);
    let started = false;
    // Every Query ('Q') and Sync ('S') the client sends is answered with one ReadyForQuery ('Z').
    let asked = 0;
    // The ReadyForQuery that ends the start-up answers nothing the client asked: not counted.
    let answered = -1;
    let commitParsed = false;
    /** The number of the ReadyForQuery that ends the COMMIT's answer, and whom to tell once it was lost. */
    let losing: { at: number; lost: () => void } | null = null;
    /** Set once a COMMIT was withheld: nothing more of the client's reaches PostgreSQL. */
    let cut = false;
    client.on('data', (chunk: Buffer) => {
      if (cut) return;
      pending = Buffer.concat([pending, chunk]);
      // Walk the client's messages: the startup message (no type byte), then typed messages, each passed
      // on once whole.
      for (;;) {
        if (!started) {
          if (pending.length < 4) break;
          const length = pending.readInt32BE(0);
          if (pending.length < length) break;
          upstream.write(pending.subarray(0, length));
          pending = pending.subarray(length);
          started = true;
          continue;
        }
        if (pending.length < 5) break;
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) break;
        const type = String.fromCharCode(pending[0]!);
        const body = pending.subarray(5, 1 + length);
        if (withholding && (type === 'Q' || type === 'P') && isCommit(type, body)) {
          const withheld = withholding;
          withholding = null;
          cut = true;
          pending = Buffer.alloc(0);
          client.destroy();
          withheld();
          return;
        }
        upstream.write(pending.subarray(0, 1 + length));
        pending = pending.subarray(1 + length);
        if (type === 'Q' || type === 'S') asked++;
        if (!armed) continue;
        if (type === 'Q' && /^\s*COMMIT\s*;?\s*$/i.test(body.subarray(0, body.length - 1).toString('utf8'))) {
          losing = { at: asked, lost: armed };
          armed = null;
        } else if (type === 'P') {
          // Parse: the statement's name, then its text, each NUL-terminated.
          const nameEnd = body.indexOf(0);
          const text = body.subarray(nameEnd + 1, body.indexOf(0, nameEnd + 1)).toString('utf8');
          if (/^\s*COMMIT\s*;?\s*$/i.test(text)) commitParsed = true;
        } else if (type === 'S' && commitParsed) {
          losing = { at: asked, lost: armed };
          armed = null;
          commitParsed = false;
        }
      }
    });
    let answer = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      answer = Buffer.concat([answer, chunk]);
      // Pass on the answers message by message up to the COMMIT's; drop that one and both connections.
      let at = 0;
      while (at + 5 <= answer.length) {
        const length = answer.readInt32BE(at + 1);
        if (at + 1 + length > answer.length) break;
        const isReady = answer[at] === 'Z'.charCodeAt(0);
        if (losing && answered + 1 >= losing.at) {
          if (isReady) {
            const { lost } = losing;
            losing = null;
            closeBoth();
            lost();
            return;
          }
        } else {
          client.write(answer.subarray(at, at + 1 + length));
          if (isReady) answered++;
        }
        at += 1 + length;
      }
      answer = answer.subarray(at);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    loseNextCommitAnswer: () => new Promise<void>((resolve) => (armed = resolve)),
    withholdNextCommit: () => new Promise<void>((resolve) => (withholding = resolve)),
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
