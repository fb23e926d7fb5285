import { execFile } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { promisify } from 'node:util'
import { build as bundle } from 'esbuild'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { publicSubpaths, readManifest } from './cold-import.mjs'

/**
 * The packages installed the way an app outside this repository installs them (README, "Use it in your
 * app"): `pnpm pack:all` writes the tarballs, npm installs all three in one command into an empty folder
 * under the OS temp dir, third-party packages come from the registry (the npm cache is fine). Then a small
 * program per subpath (scripts/consumer/<name>.ts) is type-checked against the installed declarations and
 * run; each subpath's declarations are compiled without `@types/node` to check which ones need it; and pnpm
 * installs the same tarballs through `pnpm.overrides`.
 *
 * Optional peers are installed at the exact version the workspace tests with, and with their install
 * scripts off: a native addon (better-sqlite3) gets the build of that same version from the workspace,
 * because compiling it again takes minutes here (no prebuilt binaries can be downloaded). Set
 * AGENT_CORE_INSTALL_TEST_BUILD_NATIVE=1 to have npm build it instead.
 */
const exec = promisify(execFile)
const root = join(import.meta.dirname, '..')
const consumerPrograms = join(import.meta.dirname, 'consumer')
/** Subpaths whose declarations need Node's types (`node:http`); every other one compiles with `types: []`. */
const NEEDS_NODE_TYPES = new Set(['@agent-core/kits/mcp', '@agent-core/mock/node', '@agent-core/mock/vitest'])
/**
 * Third-party declarations that need the DOM lib themselves (the MCP SDK's `Transport` names `HeadersInit`),
 * reached through a subpath that exposes their types (`@agent-core/kits/mcp`): without the DOM lib an App
 * type-checks them with `skipLibCheck` (the README says so). Errors in any other file fail the check.
 */
const THIRD_PARTY_DOM = ['/@modelcontextprotocol/sdk/']

const subpaths = publicSubpaths()
const programName = (s: { pkg: string; subpath: string }) =>
  s.subpath === '.' ? s.pkg : `${s.pkg}-${s.subpath.slice(2).replaceAll('/', '-')}`
const manifests = new Map(
  (['core', 'kits', 'mock'] as const).map((pkg) => [pkg, readManifest({ dir: `packages/${pkg}` })]),
)

let work: string
let npmApp: string
let tarballs: string[]

/** Runs a command; on failure the error carries its output, which vitest prints. */
async function run(
  command: string,
  args: readonly string[],
  cwd: string,
  timeout = 300_000,
): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' }
  for (const key of Object.keys(env)) if (key.startsWith('VITEST') || key === 'NODE_OPTIONS') delete env[key]
  try {
    const { stdout, stderr } = await exec(command, [...args], {
      cwd,
      env,
      timeout,
      maxBuffer: 64 * 1024 * 1024,
    })
    return `${stdout}${stderr}`
  } catch (error) {
    const {
      stdout = '',
      stderr = '',
      message,
    } = error as { stdout?: string; stderr?: string; message: string }
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${message}\n${stdout}\n${stderr}`)
  }
}

/** The version of `name` installed for a workspace package (what the workspace tests with), if any. */
function workspaceVersion(pkg: string, name: string): string | undefined {
  const file = join(root, 'packages', pkg, 'node_modules', name, 'package.json')
  return existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version
    : undefined
}

/**
 * What an App installs next to an optional peer to use it at all, as the subpath's guide says: the
 * OpenTelemetry API records nothing without an SDK (docs/kits/otel.md); the AI SDK's declarations need
 * `@types/json-schema` (docs/kits/ai-sdk.md).
 */
const PEER_COMPANIONS: Readonly<Record<string, readonly string[]>> = {
  '@opentelemetry/api': ['@opentelemetry/sdk-trace-base'],
  // The AI SDK's declarations import the `json-schema` types, which no AI SDK package depends on: with
  // skipLibCheck off an App installs them (docs/kits/ai-sdk.md, README). Named with its version: the
  // workspace does not install it (it would tighten the types the AI SDK tests in the repo compile against).
  '@ai-sdk/provider': ['@types/json-schema@7.0.15'],
}

/**
 * Optional peers (with their `@types/*` and companions from the same devDependencies), at the workspace's
 * versions.
 */
function optionalPeers(): string[] {
  const specs = new Set<string>()
  for (const [pkg, manifest] of manifests) {
    const peers = Object.entries((manifest.peerDependencies ?? {}) as Record<string, string>)
    for (const [name, range] of peers) {
      specs.add(`${name}@${workspaceVersion(pkg, name) ?? range}`)
      for (const companion of PEER_COMPANIONS[name] ?? []) {
        if (companion.lastIndexOf('@') > 0) {
          specs.add(companion)
          continue
        }
        const version = workspaceVersion(pkg, companion)
        if (!version) throw new Error(`${companion} (used with ${name}) is not a devDependency of ${pkg}`)
        specs.add(`${companion}@${version}`)
      }
      const types = `@types/${name.replace(/^@([^/]+)\//, '$1__')}`
      const typesVersion = workspaceVersion(pkg, types)
      if (typesVersion) specs.add(`${types}@${typesVersion}`)
    }
  }
  return [...specs].sort()
}

/** True when every package's dist is newer than its sources and build configuration (no build needed). */
function distIsFresh(): boolean {
  const times = (dir: string, keep: (file: string) => boolean): number[] =>
    existsSync(dir)
      ? readdirSync(dir, { recursive: true, encoding: 'utf8' })
          .filter(keep)
          .map((file) => statSync(join(dir, file)).mtimeMs)
      : []
  return [...manifests.keys()].every((pkg) => {
    const dir = join(root, 'packages', pkg)
    const built = times(join(dir, 'dist'), (f) => f.endsWith('.js') || f.endsWith('.d.ts'))
    const sources = [
      ...times(join(dir, 'src'), (f) => f.endsWith('.ts') && !/\.test(-d)?\.ts$/.test(f)),
      ...['package.json', 'tsup.config.ts'].map((f) => statSync(join(dir, f)).mtimeMs),
      statSync(join(root, 'scripts/tsup-config.mjs')).mtimeMs,
    ]
    return built.length > 0 && Math.min(...built) > Math.max(...sources)
  })
}

/** Packages in an app's node_modules that build native code on install (binding.gyp or install scripts). */
function nativePackages(app: string): string[] {
  const found: string[] = []
  const modules = join(app, 'node_modules')
  for (const entry of readdirSync(modules)) {
    const names = entry.startsWith('@')
      ? readdirSync(join(modules, entry)).map((n) => `${entry}/${n}`)
      : [entry]
    for (const name of names) {
      const dir = join(modules, name)
      const manifestFile = join(dir, 'package.json')
      if (!existsSync(manifestFile)) continue
      const scripts = (JSON.parse(readFileSync(manifestFile, 'utf8')) as { scripts?: Record<string, string> })
        .scripts
      if (
        existsSync(join(dir, 'binding.gyp')) ||
        scripts?.install ||
        scripts?.preinstall ||
        scripts?.postinstall
      )
        found.push(name)
    }
  }
  return found
}

/** Gives each native package the build of the identical workspace version, or has npm build it. */
async function provideNativeBuilds(app: string): Promise<void> {
  const toBuild: string[] = []
  for (const name of nativePackages(app)) {
    const version = (
      JSON.parse(readFileSync(join(app, 'node_modules', name, 'package.json'), 'utf8')) as {
        version: string
      }
    ).version
    const source = [...manifests.keys()]
      .filter((pkg) => workspaceVersion(pkg, name) === version)
      .map((pkg) => join(root, 'packages', pkg, 'node_modules', name, 'build'))
      .find((dir) => existsSync(dir))
    if (source && process.env.AGENT_CORE_INSTALL_TEST_BUILD_NATIVE !== '1')
      cpSync(source, join(app, 'node_modules', name, 'build'), { recursive: true })
    else toBuild.push(name)
  }
  if (toBuild.length) await run('npm', ['rebuild', ...toBuild], app, 900_000)
}

describe('installed from tarballs into an app outside the workspace', () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'agent-core-install-'))
    const packs = join(work, 'packs')
    // pack:all builds first; a dist newer than every source (as right after `pnpm build`) is packed as it is
    const build = distIsFresh() ? ['--no-build'] : []
    await run(process.execPath, [join(root, 'scripts/pack.mjs'), '--out', packs, ...build], root, 600_000)
    tarballs = readdirSync(packs)
      .filter((f) => f.endsWith('.tgz'))
      .map((f) => join(packs, f))
      .sort()

    npmApp = join(work, 'npm-app')
    mkdirSync(npmApp)
    writeFileSync(join(npmApp, 'package.json'), '{ "name": "npm-app", "private": true, "type": "module" }\n')
    // exactly the README's command: the three tarballs in one npm install
    await run('npm', ['install', ...tarballs], npmApp)
    const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>
    }
    const typescript = createRequire(join(root, 'package.json'))('typescript/package.json') as {
      version: string
    }
    await run(
      'npm',
      [
        'install',
        '--ignore-scripts',
        ...optionalPeers(),
        `@types/node@${rootManifest.devDependencies['@types/node']}`,
        `typescript@${typescript.version}`,
      ],
      npmApp,
    )
    await provideNativeBuilds(npmApp)
  }, 1_200_000)

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true })
  })

  it('pack:all rewrote the workspace ranges, and npm installed one copy of each package', () => {
    expect(tarballs.map((t) => t.split('/').at(-1))).toEqual([
      'agent-core-core-0.1.0.tgz',
      'agent-core-kits-0.1.0.tgz',
      'agent-core-mock-0.1.0.tgz',
    ])
    const installed = (name: string) =>
      JSON.parse(readFileSync(join(npmApp, 'node_modules', name, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>
      }
    expect(installed('@agent-core/kits').dependencies?.['@agent-core/core']).toBe('0.1.0')
    expect(installed('@agent-core/mock').dependencies?.['@agent-core/core']).toBe('0.1.0')
    for (const pkg of ['kits', 'mock'])
      expect(existsSync(join(npmApp, 'node_modules/@agent-core', pkg, 'node_modules/@agent-core/core'))).toBe(
        false,
      )
  })

  it('has a program for every subpath, and each type-checks against the installed types and runs', async () => {
    const missing = subpaths.filter((s) => !existsSync(join(consumerPrograms, `${programName(s)}.ts`)))
    expect(
      missing.map((s) => s.specifier),
      `add scripts/consumer/<name>.ts for: ${missing.map(programName).join(', ')}`,
    ).toEqual([])
    const src = join(npmApp, 'src')
    mkdirSync(src, { recursive: true })
    for (const s of subpaths)
      cpSync(join(consumerPrograms, `${programName(s)}.ts`), join(src, `${programName(s)}.ts`))
    writeFileSync(
      join(npmApp, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          target: 'es2022',
          lib: ['es2023', 'dom'],
          types: ['node'],
          strict: true,
          skipLibCheck: true,
          outDir: 'out',
          rootDir: 'src',
          noEmitOnError: true,
        },
        include: ['src'],
      }),
    )
    await run(
      process.execPath,
      [join(npmApp, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
      npmApp,
    )
    const failures: string[] = []
    for (const s of subpaths) {
      try {
        await run(process.execPath, [join('out', `${programName(s)}.js`)], npmApp, 60_000)
      } catch (error) {
        failures.push(`${s.specifier}: ${(error as Error).message}`)
      }
    }
    expect(failures).toEqual([])
  }, 600_000)

  it('each program bundled for Node (esbuild, platform node) runs with no file of ours beside the bundle', async () => {
    // What a serverless or CLI App ships: one file holding our code, third-party packages left to its
    // node_modules (the bundles are written under the App, so they still resolve there). A module of ours
    // that loads a file from beside itself at run time (ajv's bundle in Node, a worker script) breaks here.
    const src = join(npmApp, 'src')
    mkdirSync(src, { recursive: true })
    for (const s of subpaths)
      cpSync(join(consumerPrograms, `${programName(s)}.ts`), join(src, `${programName(s)}.ts`))
    const outdir = join(npmApp, 'bundled')
    const ours = /^@agent-core\//
    await bundle({
      entryPoints: subpaths.map((s) => join(src, `${programName(s)}.ts`)),
      outdir,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      absWorkingDir: npmApp,
      logLevel: 'silent',
      plugins: [
        {
          name: 'third-party-external',
          setup(b) {
            b.onResolve({ filter: /^[^./]/ }, (args) =>
              ours.test(args.path) ? undefined : { external: true },
            )
          },
        },
      ],
    })
    const failures: string[] = []
    for (const s of subpaths) {
      const file = join(outdir, `${programName(s)}.mjs`)
      const text = readFileSync(file, 'utf8')
      // esbuild names each bundled file in a comment: the program's bundle must hold our code (the vitest
      // program imports none itself: the test file it writes and hands to vitest does)
      if (s.specifier !== '@agent-core/mock/vitest' && !text.includes('// node_modules/@agent-core/'))
        failures.push(`${s.specifier}: the bundle holds none of our files`)
      try {
        await run(process.execPath, [file], npmApp, 60_000)
      } catch (error) {
        failures.push(`${s.specifier}: ${(error as Error).message}`)
      }
    }
    expect(failures).toEqual([])
  }, 600_000)

  it('declarations need @types/node only where the README says so', () => {
    // One program per subpath (an @types package that one subpath pulls in would make Node's types global
    // for all), importing it without any @types (types: []) but with the DOM lib. The subpath's declaration
    // files are checked (skipLibCheck off); TypeScript's own lib files are parsed once and not checked.
    const probes = join(npmApp, 'probes')
    mkdirSync(probes, { recursive: true })
    const options: ts.CompilerOptions = {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      types: [],
      strict: true,
      skipLibCheck: false,
      skipDefaultLibCheck: true,
      noEmit: true,
    }
    const host = ts.createCompilerHost(options)
    const parsed = new Map<string, ts.SourceFile | undefined>()
    const getSourceFile = host.getSourceFile.bind(host)
    host.getSourceFile = (fileName, language, ...rest) => {
      if (!parsed.has(fileName)) parsed.set(fileName, getSourceFile(fileName, language, ...rest))
      return parsed.get(fileName)
    }
    const problems = new Map<string, string>()
    for (const s of subpaths) {
      const probe = join(probes, `${programName(s)}.ts`)
      writeFileSync(probe, `import * as m from '${s.specifier}'\nexport const keep = m\n`)
      const diagnostics = ts.getPreEmitDiagnostics(ts.createProgram([probe], options, host))
      if (diagnostics.length)
        problems.set(s.specifier, ts.formatDiagnostics(diagnostics, { ...host, getNewLine: () => '\n' }))
    }
    const unexpected = [...problems].filter(([specifier]) => !NEEDS_NODE_TYPES.has(specifier))
    expect([...problems.keys()].sort(), unexpected.map(([, text]) => text).join('\n')).toEqual(
      [...NEEDS_NODE_TYPES].sort(),
    )
  }, 300_000)

  it('declarations compile with @types/node 20 and 22 and no DOM lib (skipLibCheck off), with TypeScript 5.9 and 7', async () => {
    // An App on Node without the DOM lib: every subpath imported in one program (Node's types are global
    // here anyway), every declaration file checked. TypeScript 7 (the native compiler) is what some users
    // type-check with; the build itself stays on 5.9.
    const combos = join(work, 'no-dom')
    const nodeTypes: Record<string, string> = {}
    for (const major of ['20', '22']) {
      const dir = join(combos, `types-node-${major}`)
      mkdirSync(dir, { recursive: true })
      writeFileSync(join(dir, 'package.json'), '{ "name": "types", "private": true }\n')
      await run('npm', ['install', '--ignore-scripts', `@types/node@${major}`], dir)
      nodeTypes[major] = join(dir, 'node_modules/@types')
    }
    const ts7 = join(combos, 'ts7')
    mkdirSync(ts7, { recursive: true })
    writeFileSync(join(ts7, 'package.json'), '{ "name": "ts7", "private": true }\n')
    await run('npm', ['install', 'typescript@7'], ts7)
    const probe = join(npmApp, 'probes-no-dom')
    mkdirSync(probe, { recursive: true })
    writeFileSync(
      join(probe, 'all.ts'),
      `${subpaths.map((s, i) => `import * as m${i} from '${s.specifier}'`).join('\n')}\nexport const keep = [${subpaths.map((_, i) => `m${i}`).join(', ')}]\n`,
    )
    const problems: string[] = []
    for (const [major, typeRoot] of Object.entries(nodeTypes)) {
      // TypeScript 5.9 through its API
      const options: ts.CompilerOptions = {
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        lib: ['lib.es2023.d.ts'],
        types: ['node'],
        typeRoots: [typeRoot],
        strict: true,
        skipLibCheck: false,
        skipDefaultLibCheck: true,
        noEmit: true,
      }
      const host = ts.createCompilerHost(options)
      const diagnostics = ts
        .getPreEmitDiagnostics(ts.createProgram([join(probe, 'all.ts')], options, host))
        .filter((d) => !THIRD_PARTY_DOM.some((dir) => d.file?.fileName.includes(dir)))
      if (diagnostics.length)
        problems.push(
          `TypeScript ${ts.version}, @types/node ${major}:\n${ts.formatDiagnostics(diagnostics, { ...host, getNewLine: () => '\n' })}`,
        )
      // TypeScript 7 through its CLI
      const config = join(probe, `tsconfig.node${major}.json`)
      writeFileSync(
        config,
        JSON.stringify({
          compilerOptions: {
            module: 'nodenext',
            moduleResolution: 'nodenext',
            target: 'es2022',
            lib: ['es2023'],
            types: ['node'],
            typeRoots: [typeRoot],
            strict: true,
            skipLibCheck: false,
            noEmit: true,
          },
          files: ['all.ts'],
        }),
      )
      try {
        await run(process.execPath, [join(ts7, 'node_modules/typescript/bin/tsc'), '-p', config], probe)
      } catch (error) {
        const errors = (error as Error).message
          .split('\n')
          .filter((line) => /error TS\d+/.test(line) && !THIRD_PARTY_DOM.some((dir) => line.includes(dir)))
        if (errors.length) problems.push(`TypeScript 7, @types/node ${major}:\n${errors.join('\n')}`)
      }
    }
    expect(problems, problems.join('\n')).toEqual([])
  }, 900_000)

  it('every public error class of the installed dist is named as it is exported', async () => {
    const program = join(npmApp, 'error-names.mjs')
    writeFileSync(
      program,
      `const wrong = []\nlet checked = 0\nfor (const specifier of ${JSON.stringify(subpaths.map((s) => s.specifier))}) {\n  const m = await import(specifier)\n  for (const [name, value] of Object.entries(m)) {\n    if (typeof value !== 'function' || !(value.prototype instanceof Error)) continue\n    checked++\n    if (value.name !== name) wrong.push(specifier + ' ' + name + ': ' + value.name)\n    try { const e = new value('probe'); if (e.name !== name) wrong.push(specifier + ' ' + name + ' instance: ' + e.name) } catch {}\n  }\n}\nif (wrong.length || checked < 30) { console.error(checked, wrong); process.exit(1) }\n`,
    )
    await run(process.execPath, [program], npmApp, 120_000)
  }, 300_000)

  it('pnpm installs the same tarballs through pnpm.overrides', async () => {
    const app = join(work, 'pnpm-app')
    mkdirSync(app)
    const files = Object.fromEntries(
      tarballs.map((t) => [`@agent-core/${/^agent-core-([a-z]+)-/.exec(basename(t))?.[1]}`, `file:${t}`]),
    )
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({
        name: 'pnpm-app',
        private: true,
        type: 'module',
        dependencies: files,
        pnpm: { overrides: files },
      }),
    )
    const execpath = process.env.npm_execpath
    const [command, prefix] =
      execpath && /pnpm/.test(execpath) ? [process.execPath, [execpath]] : ['npx', ['-y', 'pnpm@9']]
    await run(command, [...prefix, 'install', '--ignore-scripts'], app)
    const store = readdirSync(join(app, 'node_modules/.pnpm')).filter((d) =>
      d.startsWith('@agent-core+core@'),
    )
    expect(store).toHaveLength(1)
    // the programs that need no optional peer (their subpath loads none, and they import none: the App
    // hands knowledge/sqlite its own better-sqlite3 Database), compiled in the npm app
    const peers = new Set(
      [...manifests.values()].flatMap((m) =>
        Object.keys((m.peerDependencies ?? {}) as Record<string, string>),
      ),
    )
    // a program imports a peer itself, or through another subpath that loads one (the models/testing
    // program runs the suite on the OpenAI adapter)
    const declaredBy = new Map(subpaths.map((x) => [x.specifier, x.declared]))
    const importsPeer = (s: { pkg: string; subpath: string }) =>
      [
        ...readFileSync(join(consumerPrograms, `${programName(s)}.ts`), 'utf8').matchAll(/from '([^']+)'/g),
      ].some(
        ([, specifier]) =>
          peers.has(specifier as string) ||
          (declaredBy.get(specifier as string) ?? []).some((name) => peers.has(name)),
      )
    const failures: string[] = []
    for (const s of subpaths.filter((x) => !x.declared.some((name) => peers.has(name)) && !importsPeer(x))) {
      const program = join(npmApp, 'out', `${programName(s)}.js`)
      cpSync(program, join(app, `${programName(s)}.js`))
      try {
        await run(process.execPath, [`${programName(s)}.js`], app, 60_000)
      } catch (error) {
        failures.push(`${s.specifier}: ${(error as Error).message}`)
      }
    }
    expect(failures).toEqual([])
  }, 600_000)
})

it('scripts/consumer holds only programs of existing subpaths', () => {
  const names = new Set(subpaths.map(programName))
  const stray = readdirSync(consumerPrograms).filter((f) => !names.has(f.replace(/\.ts$/, '')))
  expect(stray).toEqual([])
})
