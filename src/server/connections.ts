// Bounds on a connection before its first request: caps per client address and in all (past either, 503 and closed),
// and a deadline from its opening to its first request's headers, TLS handshake included (`--headers-timeout`).
import type { Server as HttpServer, IncomingMessage } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from './errors.js';
import { answerClientError } from './clientError.js';
import { answerRefused, refusalAnswers, type Cap } from './connectionRefusal.js';
import { CONNECTION_REFUSALS_MAX } from '../core/limits.js';

export interface ConnectionBounds {
  /** Open connections from one address at most. */
  perClient: number;
  /** Open connections at most (`--max-connections`). */
  total: number;
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

// A deadline of our own: Node's clocks start later (its headers time-out at a request's first byte, for TLS only
// after the handshake, whose own time-out is 120 s), so a silent connection would hold its slot far longer. Later
// requests on a kept-alive connection are timed by Node (headersTimeout, keepAliveTimeout).
export class ConnectionGuard {
  private readonly byClient = new Map<string, number>();
  private all = 0;
  /** Connections past a cap whose answer is being written (and their clients' last bytes read). */
  private readonly refusing = new Set<Socket>();
  private readonly answers: Record<Cap, Buffer>;
  /** TLS connections still in their handshake, by peer. */
  private readonly handshaking = new Map<string, Opening>();
  private readonly openings = new Set<Opening>();
  private readonly openingOf = new WeakMap<Socket, Opening>();

  constructor(
    private readonly bounds: ConnectionBounds,
    private readonly log: Logger,
  ) {
    this.answers = refusalAnswers(bounds);
  }

  /** Open connections (those refused not counted): from one address, or in all. */
  open(address?: string): number {
    return address === undefined ? this.all : (this.byClient.get(address) ?? 0);
  }

  /** Addresses with a connection open, connections still waiting for their first request, and refused ones being answered (all drop to 0). */
  get tracked(): { clients: number; openings: number; handshaking: number; refusing: number } {
    return { clients: this.byClient.size, openings: this.openings.size, handshaking: this.handshaking.size, refusing: this.refusing.size };
  }

  /**
   * Watches every connection of the server, and lets Node's own listeners (HTTP's parser, TLS's handshake) see only
   * those within the caps: one refused is answered on its raw socket, and no request on it is ever parsed or handled.
   */
  attach(server: HttpServer | HttpsServer, tls: boolean): void {
    const admitted = server.listeners('connection') as Array<(socket: Socket) => void>;
    server.removeAllListeners('connection');
    server.on('connection', (socket: Socket) => {
      if (!this.opened(socket, tls)) return;
      for (const listener of admitted) listener.call(server, socket);
    });
    if (tls) server.on('secureConnection', (socket: TLSSocket) => this.secured(socket));
    // Emitted once a request's headers are whole.
    server.on('request', (request: IncomingMessage) => this.arrived(request.socket));
  }

  /** Shutting down: connections that never sent a request, and refused ones, are closed now, not at their deadline. */
  closeOpenings(): void {
    for (const opening of this.openings) opening.raw.destroy();
    for (const socket of this.refusing) socket.destroy();
  }

  /** Counts a new connection in, or refuses it past a cap: whether it is admitted. */
  private opened(socket: Socket, tls: boolean): boolean {
    const address = socket.remoteAddress;
    // Gone before it was seen: nothing to count.
    if (address === undefined) return (socket.destroy(), false);
    const held = this.byClient.get(address) ?? 0;
    if (held >= this.bounds.perClient) {
      this.refuse(socket, tls, 'perClient', `${address} has ${held} open, the most one client may (--max-connections-per-client)`);
      return false;
    }
    if (this.all >= this.bounds.total) {
      this.refuse(socket, tls, 'total', `the server has ${this.all} open, the most it takes (--max-connections)`);
      return false;
    }
    this.byClient.set(address, held + 1);
    this.all++;
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
      this.all--;
      const left = (this.byClient.get(address) ?? 1) - 1;
      if (left > 0) this.byClient.set(address, left);
      else this.byClient.delete(address);
    });
    return true;
  }

  /** 503 and closed; on TLS, or with CONNECTION_REFUSALS_MAX answers already under way, closed at once. */
  private refuse(socket: Socket, tls: boolean, cap: Cap, why: string): void {
    if (tls || this.refusing.size >= CONNECTION_REFUSALS_MAX) {
      this.log(`connection from ${socket.remoteAddress} closed: ${why}`, 'debug');
      socket.destroy();
      return;
    }
    this.log(`connection from ${socket.remoteAddress} answered 503: ${why}`, 'debug');
    this.refusing.add(socket);
    socket.once('close', () => this.refusing.delete(socket));
    answerRefused(socket, this.answers[cap]);
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
