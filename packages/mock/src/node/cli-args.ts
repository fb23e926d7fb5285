import { InvalidInputError, refuseField } from '@agent-core/core'

/** The `mockgpt` flags, parsed. */
export interface CliArgs {
  readonly help: boolean
  readonly version: boolean
  readonly port: number
  readonly host: string
  readonly seed: number
  readonly script: string | undefined
  readonly apiKeys: readonly string[]
  readonly models: readonly string[]
  readonly chaosRate: number | undefined
  readonly maxCalls: number | undefined
  readonly maxTokens: number | undefined
  readonly strict: boolean
  readonly chaosUnrecoverable: boolean
  readonly replay: string | undefined
  readonly record: string | undefined
  readonly upstream: string | undefined
  readonly adminToken: string | undefined
  readonly allowedHosts: readonly string[]
}

export const HELP = `mockgpt: an OpenAI-compatible model simulator for tests and CI (MockGPT).

Usage: mockgpt [options]

Options:
  --port <n>          Port to listen on; 0 picks a free one. Default 8787.
  --host <address>    Address to bind. Default 127.0.0.1 (loopback only).
  --seed <n>          Integer seed for every generated text, JSON value, id, embedding
                      and chaos roll. Same seed + same requests = same answers. Default 0.
  --script <file>     JSON script: an array of entries { reply?, match?, times?, faults? }
                      (or { "script": [...] }) answered in order before the default responder.
  --api-key <key>     Require "Authorization: Bearer <key>" on /v1/*. Repeat for several keys.
  --model <id>        A model id for GET /v1/models. Repeat for several (replaces the defaults).
  --chaos-rate <r>    Fail this fraction (0..1) of model requests with a seeded random fault
                      (429/500/503 with retry headers, a dropped stream, a malformed chunk).
  --max-calls <n>     Budget: after n answered model calls, answer 429 with the usage so far.
  --max-tokens <n>    Budget: after n total tokens, answer 429 with the usage so far.
  --strict            Strict mode (for CI): a request no script entry or replay fixture
                      matches is an error, and request fields the SDKs do not define are refused.
  --chaos-unrecoverable
                      Let chaos also drop streams and send malformed chunks (default pool:
                      retryable statuses with Retry-After, slow first byte, slow chunks).
  --replay <file>     Answer from a fixture file recorded with --record (no network).
  --record <file>     Record mode: forward model requests to --upstream and write the
                      exchanges, credentials stripped, to <file> on exit.
  --upstream <url>    The real endpoint for --record, e.g. https://api.openai.com/v1. The key
                      sent upstream is MOCKGPT_UPSTREAM_API_KEY, else the client's own.
  --admin-token <t>   Require "Authorization: Bearer <t>" on /_mock/*. Generated and printed
                      when --host is not loopback.
  --allowed-host <h>  Another Host name to accept (DNS rebinding protection). Repeatable.
  -h, --help          Show this help and exit.
  -v, --version       Print the version and exit.

Endpoints: POST /v1/chat/completions, POST /v1/responses, POST /v1/embeddings, GET /v1/models[/{id}].
  Anthropic: POST /v1/messages. Test scopes: header X-Test-Id, or the prefix /test/<id>/v1/...
Admin: GET /_mock/requests, GET /_mock/usage, POST /_mock/reset, POST /_mock/script (body: entries).

Example:
  mockgpt --port 8787 --seed 1 --script responses.json
  OPENAI_BASE_URL=http://127.0.0.1:8787/v1 OPENAI_API_KEY=test node my-app.js
`

function integer(flag: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = Number(text)
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max) {
    refuseField(
      'input',
      flag,
      `must be an integer from ${min} to ${max}, but got "${text}". Run mockgpt --help`,
      text,
    )
  }
  return value
}

/**
 * Parses `mockgpt` command-line arguments (everything after the script name).
 * @throws InvalidInputError naming the flag and what it accepts
 */
export function parseCliArgs(argv: readonly string[]): CliArgs {
  let help = false
  let version = false
  let port = 8787
  let host = '127.0.0.1'
  let seed = 0
  let script: string | undefined
  const apiKeys: string[] = []
  const models: string[] = []
  let chaosRate: number | undefined
  let maxCalls: number | undefined
  let maxTokens: number | undefined
  let strict = false
  let chaosUnrecoverable = false
  let replay: string | undefined
  let record: string | undefined
  let upstream: string | undefined
  let adminToken: string | undefined
  const allowedHosts: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1
    const flag = eq > 0 ? arg.slice(0, eq) : arg
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined
    const value = (): string => {
      if (inline !== undefined) return inline
      const next = argv[i + 1]
      if (next === undefined || next.startsWith('--')) {
        refuseField('input', flag, 'needs a value. Run mockgpt --help', next)
      }
      i++
      return next
    }
    switch (flag) {
      case '-h':
      case '--help':
        help = true
        break
      case '-v':
      case '--version':
        version = true
        break
      case '--port':
        port = integer(flag, value(), 0, 65535)
        break
      case '--host':
        host = value()
        if (host === '') refuseField('input', flag, 'must not be empty. Run mockgpt --help', host)
        break
      case '--seed':
        seed = integer(flag, value(), Number.MIN_SAFE_INTEGER)
        break
      case '--script':
        script = value()
        break
      case '--api-key':
        apiKeys.push(value())
        break
      case '--model':
        models.push(value())
        break
      case '--chaos-rate': {
        const text = value()
        const rate = Number(text)
        if (text.trim() === '' || !(rate >= 0 && rate <= 1)) {
          refuseField(
            'input',
            flag,
            `must be a number from 0 to 1, but got "${text}". Run mockgpt --help`,
            text,
          )
        }
        chaosRate = rate
        break
      }
      case '--max-calls':
        maxCalls = integer(flag, value(), 0)
        break
      case '--max-tokens':
        maxTokens = integer(flag, value(), 0)
        break
      case '--strict':
        strict = true
        break
      case '--chaos-unrecoverable':
        chaosUnrecoverable = true
        break
      case '--replay':
        replay = value()
        break
      case '--record':
        record = value()
        break
      case '--upstream':
        upstream = value()
        break
      case '--admin-token':
        adminToken = value()
        break
      case '--allowed-host':
        allowedHosts.push(value())
        break
      default:
        throw new InvalidInputError(`Unknown option "${arg}". Run mockgpt --help for the list of options.`, {
          details: { field: arg },
        })
    }
  }
  if ((record === undefined) !== (upstream === undefined)) {
    const problem = 'go together: record <file> from <url>. Run mockgpt --help'
    if (record === undefined) refuseField('input', '--record', `and --upstream ${problem}`, record)
    refuseField('input', '--upstream', problem, upstream, { prefix: '--record and ' })
  }
  if (record !== undefined && replay !== undefined) {
    refuseField('input', '--replay', 'exclude each other. Run mockgpt --help', replay, {
      prefix: '--record and ',
    })
  }
  return {
    help,
    version,
    port,
    host,
    seed,
    script,
    apiKeys,
    models,
    chaosRate,
    maxCalls,
    maxTokens,
    strict,
    chaosUnrecoverable,
    replay,
    record,
    upstream,
    adminToken,
    allowedHosts,
  }
}
