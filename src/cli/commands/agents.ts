// `ledger policies create|list|delete` and `ledger agents pending|approve|reject`: the same use-cases as the HTTP routes.
import type { Command } from 'commander';
import { action, cliActor, parseList, printJson, printTable, tenantOption, tenantIdOf, withTenantLedger } from '../common.js';
import { createPolicyRuleBody, uuidSchema } from '../../core/schemas.js';
import { parseWith } from '../../core/validate.js';
import { PAGE_SIZE_MAX } from '../../core/limits.js';
import type { Actor } from '../../core/audit.js';
import { policyRuleTypes } from '../../core/enums.js';

interface RuleOptions {
  tenant: string;
  type: string;
  amount?: string;
  debitAccount?: string;
  creditAccount?: string;
  tokens?: string;
  chains?: string;
  agentKeyPrefix?: string;
  json?: boolean;
}

/** Approving at the command line is a person's act on an agent transaction: recorded as AGENT, by the operator. */
const operatorOnAgents: Actor = { ...cliActor, type: 'AGENT' };

const describeParams = (params: Record<string, unknown>) =>
  Object.entries(params)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`)
    .join(' ');

export function registerAgents(program: Command): void {
  const policies = program.command('policies').description('policy rules that keep agent-originated transactions inside limits');

  policies
    .command('create')
    .description('create a policy rule')
    .addOption(tenantOption())
    .requiredOption('--type <type>', policyRuleTypes.join(' | '))
    .option('--amount <decimal>', 'MAX_DEBIT_PER_SESSION, MAX_DEBIT_PER_HOUR, REQUIRE_HUMAN_APPROVAL_ABOVE')
    .option('--debit-account <id>', 'FORBIDDEN_ACCOUNT_PAIR')
    .option('--credit-account <id>', 'FORBIDDEN_ACCOUNT_PAIR')
    .option('--tokens <list>', 'ALLOWED_TOKENS: USDC,USDT,BRZ,PYUSD')
    .option('--chains <list>', 'ALLOWED_CHAINS: EVM,SOLANA,TRON')
    .option('--agent-key-prefix <prefix>', 'apply only to agent keys starting with this')
    .option('--json', 'print the rule as JSON')
    .action(
      action(async (options: RuleOptions, command: Command) => {
        const tenantId = tenantIdOf(options);
        const body = parseWith(
          createPolicyRuleBody,
          {
            type: options.type,
            agentKeyPrefix: options.agentKeyPrefix,
            amount: options.amount,
            debitAccountId: options.debitAccount,
            creditAccountId: options.creditAccount,
            tokens: options.tokens === undefined ? undefined : parseList(options.tokens),
            chains: options.chains === undefined ? undefined : parseList(options.chains),
          },
          'options',
        );
        const rule = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.policyRules.create(tenantId, cliActor, body);
        });
        if (options.json) return printJson(rule);
        process.stdout.write(`Policy rule ${rule.id} created: ${rule.type} ${describeParams(rule.params as Record<string, unknown>)}.\n`);
      }),
    );

  policies
    .command('list')
    .description("the tenant's policy rules, oldest first")
    .addOption(tenantOption())
    .option('--json', 'print the rules as JSON')
    .action(
      action(async (options: { tenant: string; json?: boolean }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const rules = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.policyRules.list(tenantId);
        });
        if (options.json) return printJson(rules);
        printTable(
          ['id', 'type', 'params', 'agent key prefix', 'created'],
          rules.map((r) => [r.id, r.type, describeParams(r.params as Record<string, unknown>), r.agentKeyPrefix, r.createdAt]),
        );
      }),
    );

  policies
    .command('delete')
    .description('delete a policy rule, effective at once')
    .argument('<ruleId>', 'rule id')
    .addOption(tenantOption())
    .action(
      action(async (ruleId: string, options: { tenant: string }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const id = parseWith(uuidSchema, ruleId, 'ruleId');
        await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.policyRules.delete(tenantId, cliActor, id);
        });
        process.stdout.write(`Policy rule ${id} deleted.\n`);
      }),
    );

  const agents = program.command('agents').description('agent transactions held for approval');

  agents
    .command('pending')
    .description('agent transactions waiting for a person, newest first')
    .addOption(tenantOption())
    .option('--json', 'print the page as JSON')
    .action(
      action(async (options: { tenant: string; json?: boolean }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const page = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.agents.list(tenantId, { status: 'PENDING_APPROVAL', limit: PAGE_SIZE_MAX });
        });
        if (options.json) return printJson(page);
        printTable(
          ['id', 'session', 'agent key', 'lines', 'created'],
          page.items.map(({ value: a }) => [
            a.id,
            a.sessionId,
            a.actorKeyId,
            a.lines.map((l) => `${l.entryType} ${l.monetaryEntry.amount.toString()} ${'currency' in l.monetaryEntry ? l.monetaryEntry.currency : l.monetaryEntry.token}`).join('; '),
            a.createdAt,
          ]),
        );
      }),
    );

  for (const [verb, decision] of [
    ['approve', 'APPROVE'],
    ['reject', 'REJECT'],
  ] as const) {
    agents
      .command(verb)
      .description(verb === 'approve' ? 'approve a held agent transaction and post it' : 'reject a held agent transaction')
      .argument('<id>', 'agent transaction id')
      .addOption(tenantOption())
      .option('--json', 'print the answer as JSON')
      .action(
        action(async (rawId: string, options: { tenant: string; json?: boolean }, command: Command) => {
          const tenantId = tenantIdOf(options);
          const id = parseWith(uuidSchema, rawId, 'id');
          const result = await withTenantLedger(command, tenantId, async (ledger) => {
            return ledger.agents.decide(tenantId, operatorOnAgents, [], id, decision);
          });
          if (options.json) return printJson(result);
          process.stdout.write(`Agent transaction ${result.transactionId} is ${result.status}.\n`);
        }),
      );
  }
}
