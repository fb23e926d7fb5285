#!/usr/bin/env node
/**
 * The `mockgpt` command (the package's bin): starts MockGPT on node:http. `mockgpt --help` lists the flags.
 * Prints `MockGPT listening on <url>` once ready; stops cleanly on SIGINT/SIGTERM.
 *
 * @module
 */
import { readFileSync } from 'node:fs'
import { AgentCoreError } from '@agent-core/core'
import { parseMockScript } from '../parse-mock-script.js'
import type { MockScriptEntry } from '../script.js'
import { HELP, parseCliArgs } from './cli-args.js'
import { startMockGPTServer } from './start-mock-gpt-server.js'

function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
  return manifest.version
}

async function main(): Promise<number> {
  const args = parseCliArgs(process.argv.slice(2))
  if (args.help) {
    process.stdout.write(HELP)
    return 0
  }
  if (args.version) {
    process.stdout.write(`${version()}\n`)
    return 0
  }
  let script: MockScriptEntry[] | undefined
  if (args.script !== undefined) {
    let text: string
    try {
      text = readFileSync(args.script, 'utf8')
    } catch (error) {
      process.stderr.write(
        `mockgpt: cannot read the script file ${args.script}: ${(error as Error).message}\n`,
      )
      return 2
    }
    script = parseMockScript(text, args.script)
  }
  const server = await startMockGPTServer({
    port: args.port,
    host: args.host,
    seed: args.seed,
    script,
    apiKey: args.apiKeys.length ? args.apiKeys : undefined,
    models: args.models.length ? args.models : undefined,
    chaos: args.chaosRate === undefined ? undefined : { rate: args.chaosRate },
    budget:
      args.maxCalls === undefined && args.maxTokens === undefined
        ? undefined
        : { maxCalls: args.maxCalls, maxTokens: args.maxTokens },
  })
  process.stdout.write(
    `MockGPT listening on ${server.url} (OpenAI base URL ${server.baseURL}, seed ${args.seed})\n`,
  )
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      resolve()
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
  await server.close()
  return 0
}

main().then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    if (AgentCoreError.isInstance(error)) {
      process.stderr.write(`mockgpt: ${error.message}\n`)
      process.exitCode = 2
    } else {
      process.stderr.write(`mockgpt: ${(error as Error)?.stack ?? String(error)}\n`)
      process.exitCode = 1
    }
  },
)
