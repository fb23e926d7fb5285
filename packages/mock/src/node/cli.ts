#!/usr/bin/env node
/**
 * The `mockgpt` command (the package's bin): starts MockGPT on node:http. `mockgpt --help` lists the flags.
 * Prints `MockGPT listening on <url>` once ready; stops cleanly on SIGINT/SIGTERM.
 *
 * @module
 */
import { readFileSync } from 'node:fs'
import { AgentCoreError } from '@agent-core/core'
// The engine and the server by their public subpaths, as an app imports them (as /vitest does): imported by
// relative path, the CLI would be an entry of its own to the bundler, which would then split the engine into
// more chunks (the modules the CLI shares with the root, those it shares with /node), every one a module
// more in the cold import of those subpaths.
import { type MockFixture, type MockScriptEntry, parseMockFixtures, parseMockScript } from '@agent-core/mock'
import { startMockGPTServer } from '@agent-core/mock/node'
import { HELP, parseCliArgs } from './cli-args.js'

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
  let replay: MockFixture[] | undefined
  if (args.replay !== undefined) {
    let text: string
    try {
      text = readFileSync(args.replay, 'utf8')
    } catch (error) {
      process.stderr.write(
        `mockgpt: cannot read the fixture file ${args.replay}: ${(error as Error).message}\n`,
      )
      return 2
    }
    replay = parseMockFixtures(text, args.replay)
  }
  const upstreamKey = process.env.MOCKGPT_UPSTREAM_API_KEY
  const server = await startMockGPTServer({
    port: args.port,
    host: args.host,
    seed: args.seed,
    script,
    apiKey: args.apiKeys.length ? args.apiKeys : undefined,
    models: args.models.length ? args.models : undefined,
    chaos:
      args.chaosRate === undefined
        ? undefined
        : { rate: args.chaosRate, unrecoverable: args.chaosUnrecoverable },
    strict: args.strict,
    replay,
    adminToken: args.adminToken,
    allowedHosts: args.allowedHosts.length ? args.allowedHosts : undefined,
    record:
      args.record === undefined || args.upstream === undefined
        ? undefined
        : { upstream: args.upstream, file: args.record, apiKey: upstreamKey || undefined },
    budget:
      args.maxCalls === undefined && args.maxTokens === undefined
        ? undefined
        : { maxCalls: args.maxCalls, maxTokens: args.maxTokens },
  })
  // Listen for the signals before announcing the server: a signal right after the announcement must stop
  // it cleanly (and let the lines already written reach the pipe), not kill the process.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      resolve()
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
  const lines = [
    `MockGPT listening on ${server.url} (OpenAI base URL ${server.baseURL}, seed ${args.seed}${args.strict ? ', strict' : ''})`,
  ]
  if (server.adminToken !== undefined && args.adminToken === undefined)
    lines.push(`Admin token (send Authorization: Bearer <token> to /_mock/*): ${server.adminToken}`)
  if (args.record !== undefined) lines.push(`Recording ${args.upstream} to ${args.record}`)
  // One write, so that a reader who sees the first line sees them all.
  process.stdout.write(`${lines.join('\n')}\n`)
  await stopped
  try {
    await server.close()
  } catch (error) {
    // Script problems: report them and fail, so a CI step using the CLI cannot pass on a broken script.
    process.stderr.write(`mockgpt: ${(error as Error).message}\n`)
    return 1
  }
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
