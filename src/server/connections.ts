// Bounds on a connection before its first request. A cap on the connections of one client address
// (`--max-connections-per-client`), so that one client cannot hold every slot of `--max-connections`. And a deadline
// from the moment a connection opens to its first request's headers, its TLS handshake included (`--headers-timeout`):
// Node's own clocks start later (its headers time-out at a request's first byte, or for TLS only once the handshake is
// done; its TLS handshake time-out is 120 s), so a connection that sent nothing, or never finished its handshake,
// held its slot far longer. Later requests on a kept-alive connection are timed by Node (headersTimeout, keepAliveTimeout).
import type { Server as HttpServer, IncomingMessage } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from './errors.js';
import { answerClientError } from './clientError.js';

export interface ConnectionBounds {
  /** Open connections from one address at most. */
  perClient: number;
  /** From a connection's opening to its first request's headers. */
  headersTimeoutMs: number;
}

/** A connection whose first request has not arrived yet. */
interface Opening {
  raw: Socket;
  /** The socket HTTP is spoken on: the raw one, or the TLS one once its handshake is done. */
  http: Socket | undefined;
  /** Address and port of the client: how the TLS socket finds the raw socket it was made from. */
  peer: string;
  timer: NodeJS.Timeout;
}

const timeoutError = (): NodeJS.ErrnoException => Object.assign(new Error('first request not in time'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });

export class ConnectionGuard {
  private readonly byClient = new Map<string, number>();
  /** TLS connections still in their handshake, by peer. */
  private readonly handshaking = new Map<string, Opening>();
  private readonly openings = new Set<Opening>();
  private readonly openingOf = new WeakMap<Socket, Opening>();

  constructor(
    private readonly bounds: ConnectionBounds,
    private readonly log: Logger,
  ) {}

  /** Open connections: from one address, or in all. */
  open(address?: string): number {
    if (address !== undefined) return this.byClient.get(address) ?? 0;
    let all = 0;
    for (const n of this.byClient.values()) all += n;
    return all;
  }

  /** Addresses with a connection open, and connections still waiting for their first request (both drop to 0). */
  get tracked(): { clients: number; openings: number; handshaking: number } {
    return { clients: this.byClient.size, openings: this.openings.size, handshaking: this.handshaking.size };
  }

  /** Watches every connection of the server (after Node's own listeners, which set it up). */
  attach(server: HttpServer | HttpsServer, tls: boolean): void {
    server.on('connection', (socket: Socket) => this.opened(socket, tls));
    if (tls) server.on('secureConnection', (socket: TLSSocket) => this.secured(socket));
    // Emitted once a request's headers are whole.
    server.on('request', (request: IncomingMessage) => this.arrived(request.socket));
  }

  /** Shutting down: connections that never sent a request are closed now, not at their deadline. */
  closeOpenings(): void {
    for (const opening of this.openings) opening.raw.destroy();
  }

  private opened(socket: Socket, tls: boolean): void {
    const address = socket.remoteAddress;
    // Gone before it was seen: nothing to count.
    if (address === undefined) return void socket.destroy();
    const held = this.byClient.get(address) ?? 0;
    if (held >= this.bounds.perClient) {
      this.log(`connection from ${address} closed: it has ${held} open, the most one client may (--max-connections-per-client)`, 'debug');
      socket.destroy();
      return;
    }
    this.byClient.set(address, held + 1);
    const opening: Opening = {
      raw: socket,
      http: tls ? undefined : socket,
      peer: `${address} ${socket.remotePort}`,
      timer: setTimeout(() => this.expired(opening), this.bounds.headersTimeoutMs),
    };
    this.openings.add(opening);
    this.openingOf.set(socket, opening);
    if (tls) this.handshaking.set(opening.peer, opening);
    socket.once('close', () => {
      this.settle(opening);
      const left = (this.byClient.get(address) ?? 1) - 1;
      if (left > 0) this.byClient.set(address, left);
      else this.byClient.delete(address);
    });
  }

  private secured(socket: TLSSocket): void {
    const peer = `${socket.remoteAddress} ${socket.remotePort}`;
    const opening = this.handshaking.get(peer);
    if (!opening) return;
    this.handshaking.delete(peer);
    opening.http = socket;
    this.openingOf.set(socket, opening);
  }

  private arrived(socket: Socket): void {
    const opening = this.openingOf.get(socket);
    if (!opening) return;
    this.openingOf.delete(socket);
    this.settle(opening);
  }

  private settle(opening: Opening): void {
    clearTimeout(opening.timer);
    this.openings.delete(opening);
    if (this.handshaking.get(opening.peer) === opening) this.handshaking.delete(opening.peer);
  }

  /** No request headers within the time-out of the opening: 408 (at once closed if nothing came), or for a handshake never finished, closed. */
  private expired(opening: Opening): void {
    this.settle(opening);
    const { http, raw } = opening;
    if (!http) {
      this.log(`connection from ${opening.peer} closed: no TLS handshake within ${this.bounds.headersTimeoutMs} ms of its opening`, 'debug');
      raw.destroy();
      return;
    }
    answerClientError(timeoutError(), http, { log: this.log, headersTimeoutMs: this.bounds.headersTimeoutMs, linger: http.bytesRead > 0 });
  }
}
