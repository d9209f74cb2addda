// The hostile clients of bench/bounds.ts: a flood of event streams, connections that send nothing, and a flood of
// connections past the per-client cap, each kept up until stop() with its figures counted as it goes.
import { request, type ClientRequest } from 'node:http';
import { connect } from 'node:net';
import { sleep } from './scenario.js';

/** Stream requests of the flood on their way at once (the rest wait their turn), so the ramp is not a SYN flood. */
const FLOOD_IN_FLIGHT = 400;

/** A counting gate: at most `n` holders at once. */
function gate(n: number) {
  let free = n;
  const waiting: Array<() => void> = [];
  return {
    enter: () => (free > 0 ? (free--, Promise.resolve()) : new Promise<void>((resolve) => waiting.push(resolve))),
    leave: () => {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
}

/** `count` event streams of one key kept asked for, from `addresses` in turn, until stop(). */
export function startStreamFlood(url: string, rawKey: string, count: number, addresses: string[]) {
  const figures = { attempts: 0, accepted: 0, refused429: 0, otherStatus: 0, connectionErrors: 0, held: 0, maxHeld: 0 };
  const requests = new Set<ClientRequest>();
  // Ramped up once every stream has been asked for once and answered (or failed).
  let unanswered = count;
  let rampedUp: () => void = () => {};
  const ramped = new Promise<void>((resolve) => (rampedUp = resolve));
  const ramp = gate(FLOOD_IN_FLIGHT);
  let stopping = false;
  /**
   * One attempt: `answered` is called on its answer (a stream's headers, or a refusal) or its failure; resolves with
   * how long to wait before the next (after the stream ends, or its refusal).
   */
  const attempt = (localAddress: string, answered: () => void) =>
    new Promise<number>((resolve) => {
      figures.attempts++;
      let entered = true;
      const leave = () => {
        if (entered) {
          ramp.leave();
          answered();
        }
        entered = false;
      };
      const req = request(`${url}/api/v1/events/stream`, { agent: false, localAddress, headers: { authorization: `Bearer ${rawKey}` } }, (res) => {
        leave();
        if (res.statusCode === 200) {
          figures.accepted++;
          figures.maxHeld = Math.max(figures.maxHeld, ++figures.held);
          res.resume();
          res.once('close', () => {
            figures.held--;
            requests.delete(req);
            resolve(0);
          });
          return;
        }
        if (res.statusCode === 429) figures.refused429++;
        else figures.otherStatus++;
        const retryAfter = Number(res.headers['retry-after'] ?? 1) * 1000;
        res.resume();
        res.once('close', () => {
          requests.delete(req);
          resolve(retryAfter);
        });
      });
      requests.add(req);
      req.on('error', () => {
        leave();
        // Those the bench ends itself at the close are not the server's doing.
        if (!stopping) figures.connectionErrors++;
        requests.delete(req);
        resolve(1000);
      });
      req.end();
    });
  const loops = Array.from({ length: count }, async (_, i) => {
    const localAddress = addresses[i % addresses.length]!;
    let first = true;
    const answered = () => {
      if (first && --unanswered === 0) rampedUp();
      first = false;
    };
    while (!stopping) {
      await ramp.enter();
      if (stopping) return ramp.leave();
      const wait = await attempt(localAddress, answered);
      if (wait > 0 && !stopping) await sleep(wait);
    }
  });
  return {
    figures,
    ramped,
    stop: async () => {
      stopping = true;
      for (const req of requests) req.destroy();
      await Promise.all(loops);
    },
  };
}

/**
 * `count` connections that send nothing, from `addresses` in turn, each opened again once the server closes it, until
 * stop(). One closed in less than half the headers time-out was closed at once (a cap), the others by the time-out.
 */
export function startSilentFlood(url: string, count: number, addresses: string[], headersTimeoutMs: number) {
  const port = Number(new URL(url).port);
  const figures = { opened: 0, closedAtOnce: 0, closedAfterTimeout: 0, open: 0, maxOpen: 0 };
  const closedAfterMs: number[] = [];
  let stopping = false;
  const sockets = new Set<ReturnType<typeof connect>>();
  const loops = Array.from({ length: count }, async (_, i) => {
    const localAddress = addresses[i % addresses.length]!;
    while (!stopping) {
      await new Promise<void>((resolve) => {
        const started = performance.now();
        let connected = false;
        const socket = connect({ host: '127.0.0.1', port, localAddress }, () => {
          connected = true;
          figures.opened++;
          figures.maxOpen = Math.max(figures.maxOpen, ++figures.open);
        });
        sockets.add(socket);
        // Reads (and drops) what comes, so that the server's close is seen.
        socket.resume();
        socket.on('error', () => {});
        socket.once('close', () => {
          sockets.delete(socket);
          if (connected) figures.open--;
          const ms = performance.now() - started;
          if (!stopping) {
            if (ms < headersTimeoutMs / 2) figures.closedAtOnce++;
            else {
              figures.closedAfterTimeout++;
              closedAfterMs.push(ms);
            }
          }
          resolve();
        });
      });
      if (!stopping) await sleep(10);
    }
  });
  return {
    figures,
    closedAfterMs,
    stop: async () => {
      stopping = true;
      for (const socket of sockets) socket.destroy();
      await Promise.all(loops);
    },
  };
}

/**
 * `cap.held` connections from one address that send nothing (each opened again if closed), and `cap.clients` loops from the
 * same address, each opening a connection past the cap, sending a request and reading until the server closes it.
 */
export function startCapFlood(url: string, cap: { clients: number; held: number; address: string; headersTimeoutMs: number }) {
  const port = Number(new URL(url).port);
  const figures = { refused: 0, answered503: 0, resetOrEmpty: 0, admitted: 0 };
  let stopping = false;
  const sockets = new Set<ReturnType<typeof connect>>();
  const held = startSilentFlood(url, cap.held, [cap.address], cap.headersTimeoutMs);
  const loops = Array.from({ length: cap.clients }, async () => {
    while (!stopping) {
      await new Promise<void>((resolve) => {
        let received = '';
        let error = false;
        const socket = connect({ host: '127.0.0.1', port, localAddress: cap.address }, () => socket.write('GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n'));
        sockets.add(socket);
        socket.setEncoding('latin1');
        socket.on('data', (chunk: string) => {
          received += chunk;
          // Admitted (a slot of the held ones came free): not a refusal; closed by the client.
          if (received.startsWith('HTTP/1.1 200')) socket.destroy();
        });
        socket.on('error', () => (error = true));
        socket.once('close', () => {
          sockets.delete(socket);
          if (!stopping) {
            if (received.startsWith('HTTP/1.1 200')) figures.admitted++;
            else {
              figures.refused++;
              if (received.startsWith('HTTP/1.1 503') && !error) figures.answered503++;
              else figures.resetOrEmpty++;
            }
          }
          resolve();
        });
      });
    }
  });
  return {
    figures,
    stop: async () => {
      stopping = true;
      for (const socket of sockets) socket.destroy();
      await Promise.all(loops);
      await held.stop();
    },
  };
}

