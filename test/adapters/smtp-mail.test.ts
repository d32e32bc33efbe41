import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { classifySmtpError, createSmtpTransport } from '../../src/adapters/smtp-mail.js';
import { startSmtpSink } from '../support/smtp-sink.js';

const email = { messageId: 'A-1-welcome-0@import-ledger', to: 'claire@example.fr', subject: 'Hello', text: 'Body' };

/** A scripted SMTP peer: `onLine` answers each line the client sends (after the greeting, unless `greet` is false). */
async function rawSmtpServer(options: { greet: boolean; onLine?: (line: string, socket: Socket, inData: boolean) => boolean | void }): Promise<Server> {
  const server = createServer((socket) => {
    let inData = false;
    let buffer = '';
    if (options.greet) socket.write('220 fake ESMTP\r\n');
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      let at: number;
      while ((at = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            options.onLine?.('.', socket, true);
          }
          continue;
        }
        if (options.onLine?.(line, socket, false)) continue;
        if (/^EHLO|^HELO/i.test(line)) socket.write('250 fake\r\n');
        else if (/^MAIL FROM/i.test(line)) socket.write('250 OK\r\n');
        else if (/^RCPT TO/i.test(line)) socket.write('250 OK\r\n');
        else if (/^DATA/i.test(line)) {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (/^QUIT/i.test(line)) socket.end('221 bye\r\n');
        else socket.write('250 OK\r\n');
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

const urlOf = (server: Server) => `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`;

describe('SMTP adapter: what a failed delivery says about the message', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.close();
    }
  });

  it('accepted by a local SMTP server: sent, with the Message-ID and the server reply', async () => {
    const sink = await startSmtpSink();
    try {
      const delivery = await createSmtpTransport({ url: sink.url, from: 'no-reply@example.fr', timeoutMs: 2_000 }).send(email);
      expect(delivery).toMatchObject({ kind: 'sent', messageId: email.messageId });
      expect(delivery.kind === 'sent' && delivery.response).toMatch(/^250/);
      expect(sink.received).toHaveLength(1);
    } finally {
      await sink.close();
    }
  });

  it('a server that never greets: refused, transient (nothing was handed over)', async () => {
    const server = await rawSmtpServer({ greet: false });
    servers.push(server);
    const delivery = await createSmtpTransport({ url: urlOf(server), from: 'no-reply@example.fr', timeoutMs: 200 }).send(email);
    expect(delivery).toMatchObject({ kind: 'refused', permanent: false });
  });

  it('a connection dropped after the message data was sent: unknown (it may have been delivered)', async () => {
    const server = await rawSmtpServer({
      greet: true,
      onLine: (line, socket, afterData) => {
        if (afterData && line === '.') socket.destroy();
      },
    });
    servers.push(server);
    const delivery = await createSmtpTransport({ url: urlOf(server), from: 'no-reply@example.fr', timeoutMs: 2_000 }).send(email);
    expect(delivery.kind).toBe('unknown');
  });

  it('a 4xx reply to the data: refused, transient; a 5xx: refused, permanent', async () => {
    for (const [reply, permanent] of [
      ['451 4.3.0 try again later', false],
      ['554 5.7.1 rejected as spam', true],
    ] as const) {
      const server = await rawSmtpServer({
        greet: true,
        onLine: (line, socket, afterData) => {
          if (afterData && line === '.') socket.write(`${reply}\r\n`);
        },
      });
      servers.push(server);
      const delivery = await createSmtpTransport({ url: urlOf(server), from: 'no-reply@example.fr', timeoutMs: 2_000 }).send(email);
      expect(delivery).toMatchObject({ kind: 'refused', permanent });
    }
  });

  it('classifies nodemailer errors by what they prove', () => {
    expect(classifySmtpError(Object.assign(new Error('x'), { code: 'EENVELOPE', responseCode: 550 }))).toMatchObject({ kind: 'refused', permanent: true });
    expect(classifySmtpError(Object.assign(new Error('x'), { code: 'EENVELOPE', responseCode: 452 }))).toMatchObject({ kind: 'refused', permanent: false });
    expect(classifySmtpError(Object.assign(new Error('x'), { code: 'ESOCKET', originalCode: 'ECONNREFUSED' }))).toMatchObject({ kind: 'refused', permanent: false });
    expect(classifySmtpError(Object.assign(new Error('x'), { code: 'EAUTH' }))).toMatchObject({ kind: 'refused', permanent: false });
    expect(classifySmtpError(Object.assign(new Error('x'), { code: 'EENVELOPE' }))).toMatchObject({ kind: 'refused', permanent: true });
    expect(classifySmtpError(Object.assign(new Error('x'), { code: 'ETIMEDOUT', timeoutType: 'GREETING_TIMEOUT' }))).toMatchObject({ kind: 'refused' });
    expect(classifySmtpError(Object.assign(new Error('x'), { code: 'ETIMEDOUT', timeoutType: 'SOCKET_TIMEOUT' }))).toMatchObject({ kind: 'unknown' });
    expect(classifySmtpError(Object.assign(new Error('x'), { code: 'ECONNECTION' }))).toMatchObject({ kind: 'unknown' });
    expect(classifySmtpError('weird')).toEqual({ kind: 'unknown', reason: 'weird' });
  });
});
