// A test TRON full node: the HTTP API paths and response shapes tronweb uses (walletsolidity/getnowblock,
// walletsolidity/gettransactioninfobyblocknum, walletsolidity/getblockbynum, wallet/getnowblock,
// wallet/triggerconstantcontract), over blocks the test makes, with a solidified head that trails the head.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { TronWeb } from 'tronweb';

export const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

interface Info {
  id: string;
  blockNumber: number;
  blockTimeStamp: number;
  contract_address: string;
  receipt: { result: string; energy_usage_total: number };
  result?: string;
  log: Array<{ address: string; topics: string[]; data: string }>;
}

/** A TRON address (base58check) from 20 bytes of hex. */
export const tronAddress = (hex20: string): string => TronWeb.address.fromHex(`41${hex20.padStart(40, '0')}`);
const hex20Of = (base58: string): string => TronWeb.address.toHex(base58).slice(2).toLowerCase();
const word = (hex: string) => hex.padStart(64, '0');

export interface FakeTron {
  url: string;
  /** The last block made; the solidified head is `head - lag`. */
  head: number;
  lag: number;
  /** Calls answered per path, to see what the watcher asked. */
  calls: Map<string, number>;
  /** Every HTTP request received, answered or failed. */
  requests: number;
  /** Makes n empty blocks. */
  mine(n?: number): void;
  /** A TRC-20 transfer in a new block; answers its transaction id and block. */
  transfer(t: { contract: string; from: string; to: string; value: bigint; reverted?: boolean }): { txId: string; block: number };
  /** Fails every request while on (an RPC outage). */
  down: boolean;
  close(): Promise<void>;
}

export async function startFakeTron(options: { decimals: Record<string, number>; lag?: number }): Promise<FakeTron> {
  const infos = new Map<number, Info[]>();
  const blockId = (n: number) => createHash('sha256').update(`block-${n}`).digest('hex');
  const node = {
    head: 1000,
    lag: options.lag ?? 19,
    calls: new Map<string, number>(),
    requests: 0,
    down: false,
  } as FakeTron;
  let txCounter = 0;
  const block = (n: number) => ({
    blockID: blockId(n),
    block_header: { raw_data: { number: n, timestamp: 1_700_000_000_000 + n * 3000, parentHash: blockId(n - 1), witness_address: '41'.padEnd(42, '0') } },
  });
  node.mine = (n = 1) => {
    node.head += n;
  };
  node.transfer = ({ contract, from, to, value, reverted }) => {
    node.head += 1;
    const txId = createHash('sha256').update(`tx-${txCounter++}`).digest('hex');
    const info: Info = {
      id: txId,
      blockNumber: node.head,
      blockTimeStamp: 1_700_000_000_000 + node.head * 3000,
      contract_address: `41${hex20Of(contract)}`,
      receipt: { result: reverted ? 'REVERT' : 'SUCCESS', energy_usage_total: 13_000 },
      ...(reverted ? { result: 'FAILED' } : {}),
      // A reverted transaction's logs are what the node would show had it run; the watcher must skip them.
      log: [{ address: hex20Of(contract), topics: [TRANSFER_TOPIC, word(hex20Of(from)), word(hex20Of(to))], data: word(value.toString(16)) }],
    };
    infos.set(node.head, [...(infos.get(node.head) ?? []), info]);
    return { txId, block: node.head };
  };
  const solid = () => node.head - node.lag;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!.replace(/^\//, '');
      node.calls.set(path, (node.calls.get(path) ?? 0) + 1);
      node.requests++;
      const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>) : {};
      const send = (value: unknown, status = 200) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (node.down) return send({ Error: 'node unavailable' }, 503);
      switch (path) {
        case 'wallet/getnowblock':
          return send(block(node.head));
        case 'walletsolidity/getnowblock':
          return send(block(solid()));
        case 'walletsolidity/getblockbynum': {
          const n = Number(body.num);
          return send(n <= solid() ? block(n) : {});
        }
        case 'walletsolidity/gettransactioninfobyblocknum': {
          const n = Number(body.num);
          // The real node answers {} for a block without transactions, and nothing beyond the solidified head.
          const list = n <= solid() ? (infos.get(n) ?? []) : [];
          return send(list.length ? list : {});
        }
        case 'wallet/triggerconstantcontract': {
          const contract = String(body.contract_address ?? '').toLowerCase();
          const decimals = Object.entries(options.decimals).find(([address]) => `41${hex20Of(address)}` === contract)?.[1];
          if (decimals === undefined) return send({ result: { code: 'CONTRACT_VALIDATE_ERROR', message: Buffer.from('no contract').toString('hex') } });
          return send({ result: { result: true }, energy_used: 300, constant_result: [word(decimals.toString(16))], transaction: { ret: [{}], visible: false, txID: 'x', raw_data: {} } });
        }
        default:
          return send({ Error: `unknown path ${path}` }, 404);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  node.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  node.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return node;
}
