// The reference: a bare Hono JSON echo on @hono/node-server, the ceiling for any JSON endpoint on this machine.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const port = Number(process.env['PORT'] ?? 8181);
const app = new Hono().post('/echo/', async (c) => c.json(await c.req.json()));
serve({ fetch: app.fetch, hostname: '127.0.0.1', port }, () => process.stdout.write('ready\n'));
