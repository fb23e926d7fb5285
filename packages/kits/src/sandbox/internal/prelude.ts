/**
 * The script that prepares a fresh QuickJS context before the model's code runs in it. It is evaluated as a
 * function expression and called with the host's two functions, so they never appear on the global object:
 *
 * - determinism: `Math.random` is a seeded PRNG (sfc32), `Date` a clock frozen at the recorded instant, in
 *   UTC whatever the host's time zone; `WeakRef` and `FinalizationRegistry` (which observe the garbage
 *   collector) are removed;
 * - `console.*` formats its arguments and hands the text to the host;
 * - each tool becomes an async function (a global for ids that can name one, and `tools[id]` for all) whose
 *   input and result cross as JSON text; a failed call rejects with a `ToolCallError`;
 * - every intrinsic reachable from the global object, the global object itself and the hidden intrinsics
 *   (async and generator functions, iterators) are frozen; the properties scripts commonly assign on their
 *   own objects (`name`, `message`, `toString`, ...) become accessors that define an own property on the
 *   receiver, so freezing the prototypes does not break `this.name = 'MyError'` (the "override mistake");
 * - with kept globals (`globalsJson`, the JSON text of the globals the previous code call left), `globals`
 *   is a plain object the script may change (the only thing on the global object that is not frozen);
 * - it returns `run(main)`, which awaits the script and serializes its value (or its error) to JSON text
 *   inside the sandbox, `describe(error)` for errors thrown while compiling, and `capture()`, which writes
 *   the globals as JSON text `{ values, dropped }`: each key whose value is plain JSON in `values`, each
 *   other one in `dropped` with the reason (a function, a cycle, a Map, undefined inside, ...).
 */
export const PRELUDE = String.raw`(function (hostCall, hostLog, idsJson, declarableJson, seed, now, maxText, globalsJson) {
  'use strict'
  const g = globalThis
  const { defineProperty, freeze, getOwnPropertyDescriptor, getPrototypeOf } = Object
  const ownKeys = Reflect.ownKeys
  const stringify = JSON.stringify
  const parse = JSON.parse
  for (const name of ['WeakRef', 'FinalizationRegistry', 'SharedArrayBuffer', 'Atomics']) delete g[name]

  // Math.random: sfc32 seeded from one 32-bit integer.
  let a = 0x9e3779b9, b = 0x243f6a88, c = 0xb7e15162, d = seed >>> 0
  const next = () => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0
    let t = (a + b) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (c << 21) | (c >>> 11)
    d = (d + 1) | 0
    t = (t + d) | 0
    c = (c + t) | 0
    return (t >>> 0) / 4294967296
  }
  for (let i = 0; i < 12; i++) next()
  defineProperty(Math, 'random', { value: function random() { return next() }, writable: true, configurable: true })

  // Date: a frozen clock, in UTC.
  const RealDate = Date
  const proto = RealDate.prototype
  const hostOffset = proto.getTimezoneOffset
  const zoned = /(?:\dZ\b|Z$|[+-]\d\d:?\d\d\)?$|\b(?:GMT|UTC|UT|[ECMP][SD]T)\b)/i
  const dateOnly = /^[+-]?\d{4,6}(?:-\d\d(?:-\d\d)?)?$/
  const parseUtc = function parse(text) {
    const string = String(text).trim()
    const time = RealDate.parse(string)
    if (time !== time || zoned.test(string) || dateOnly.test(string)) return time
    return time - hostOffset.call(new RealDate(time)) * 60000
  }
  const SandboxDate = function Date(...args) {
    if (new.target === undefined) return new SandboxDate().toString()
    let time
    if (args.length === 0) time = now
    else if (args.length === 1) {
      const value = args[0]
      time = typeof value === 'string' ? parseUtc(value) : value instanceof RealDate ? value.getTime() : Number(value)
    } else time = RealDate.UTC(...args)
    return Reflect.construct(RealDate, [time], new.target)
  }
  SandboxDate.prototype = proto
  defineProperty(proto, 'constructor', { value: SandboxDate, writable: true, configurable: true })
  SandboxDate.now = function now_() { return now }
  defineProperty(SandboxDate.now, 'name', { value: 'now' })
  SandboxDate.parse = parseUtc
  SandboxDate.UTC = RealDate.UTC
  const method = (name, fn) => {
    defineProperty(fn, 'name', { value: name })
    defineProperty(proto, name, { value: fn, writable: true, configurable: true })
  }
  for (const part of ['FullYear', 'Month', 'Date', 'Day', 'Hours', 'Minutes', 'Seconds', 'Milliseconds']) {
    const get = proto['getUTC' + part]
    method('get' + part, function () { return get.call(this) })
    if (part !== 'Day') {
      const set = proto['setUTC' + part]
      method('set' + part, function (...args) { return set.apply(this, args) })
    }
  }
  const getTime = proto.getTime
  const toUTCString = proto.toUTCString
  method('getTimezoneOffset', function () { getTime.call(this); return 0 })
  const text = (date) => {
    const utc = toUTCString.call(date)
    if (utc === 'Invalid Date') return undefined
    const [day, rest] = utc.split(', ')
    const [dd, mon, year, time] = rest.split(' ')
    return { date: day + ' ' + mon + ' ' + dd + ' ' + year, time: time + ' GMT+0000 (Coordinated Universal Time)' }
  }
  method('toString', function () { const t = text(this); return t ? t.date + ' ' + t.time : 'Invalid Date' })
  method('toDateString', function () { const t = text(this); return t ? t.date : 'Invalid Date' })
  method('toTimeString', function () { const t = text(this); return t ? t.time : 'Invalid Date' })
  method('toLocaleString', function () { const t = text(this); return t ? t.date + ' ' + t.time : 'Invalid Date' })
  method('toLocaleDateString', function () { const t = text(this); return t ? t.date : 'Invalid Date' })
  method('toLocaleTimeString', function () { const t = text(this); return t ? t.time : 'Invalid Date' })
  if (typeof proto.getYear === 'function') {
    method('getYear', function () { return proto.getUTCFullYear.call(this) - 1900 })
  }
  g.Date = SandboxDate

  // JSON text of a value for the console and for results; never throws.
  const inspect = (value) => {
    if (typeof value === 'string') return value
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') {
      return String(value)
    }
    if (value instanceof Error) return value.name + ': ' + value.message
    try {
      const seen = []
      const out = stringify(value, function (key, item) {
        if (typeof item === 'bigint') return item.toString() + 'n'
        if (typeof item === 'function') return '[Function ' + (item.name || 'anonymous') + ']'
        if (typeof item === 'symbol' || item === undefined) return item === undefined && Array.isArray(this) ? null : undefined
        if (typeof item === 'object' && item !== null) {
          if (seen.indexOf(item) !== -1) return '[Circular]'
          seen.push(item)
        }
        return item
      })
      return out === undefined ? String(value) : out
    } catch (error) {
      try { return String(value) } catch { return '[unprintable]' }
    }
  }
  const logger = (level) => {
    const fn = function (...args) { hostLog(level, args.map(inspect).join(' ')) }
    defineProperty(fn, 'name', { value: level })
    return fn
  }
  g.console = { log: logger('log'), info: logger('info'), warn: logger('warn'), error: logger('error'), debug: logger('debug') }

  // Tools.
  class ToolCallError extends Error {
    constructor(info, site) {
      super(String(info.message))
      if (typeof site === 'string') defineProperty(this, 'stack', { value: site, writable: true, configurable: true })
      defineProperty(this, 'name', { value: String(info.name || 'ToolCallError'), writable: true, configurable: true })
      for (const key of ['code', 'toolId', 'phase', 'by', 'instruction', 'limit']) {
        if (info[key] !== undefined) defineProperty(this, key, { value: info[key], enumerable: true })
      }
    }
  }
  g.ToolCallError = ToolCallError
  const ids = parse(idsJson)
  const declarable = parse(declarableJson)
  const tools = {}
  for (const id of ids) {
    const fn = async function (input) {
      // Where the script called the tool: a failure points there, not into this wrapper.
      const site = new Error().stack
      const json = stringify(input === undefined ? {} : input)
      if (json === undefined) throw new TypeError(id + ' takes one JSON object as its input')
      const envelope = parse(await hostCall(id, json))
      if (envelope.ok) return envelope.value
      throw new ToolCallError(envelope.error, site)
    }
    defineProperty(fn, 'name', { value: id })
    tools[id] = fn
  }
  for (const id of declarable) defineProperty(g, id, { value: tools[id], enumerable: true })
  g.tools = tools
  const globals = globalsJson === undefined ? undefined : parse(globalsJson)
  if (globals !== undefined) defineProperty(g, 'globals', { value: globals, enumerable: true })

  // Freeze every intrinsic, then the global object. First, the properties scripts assign on their own
  // objects become accessors that define an own property on the receiver (frozen prototypes would
  // otherwise refuse 'this.name = ...' in a subclass of Error, or 'obj.toString = ...').
  const overridable = ['constructor', 'name', 'message', 'toString', 'toLocaleString', 'valueOf', 'toJSON']
  const targets = [Object.prototype, Function.prototype]
  for (const name of ['Error', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError', 'TypeError', 'URIError', 'AggregateError', 'InternalError']) {
    if (typeof g[name] === 'function') targets.push(g[name].prototype)
  }
  for (const target of targets) {
    for (const key of overridable) {
      const descriptor = getOwnPropertyDescriptor(target, key)
      if (descriptor === undefined || !('value' in descriptor) || !descriptor.configurable) continue
      const value = descriptor.value
      defineProperty(target, key, {
        get() { return value },
        set(replacement) {
          if (this === target) throw new TypeError('Cannot assign to read only property ' + String(key) + ' of a frozen object')
          defineProperty(this, key, { value: replacement, writable: true, enumerable: true, configurable: true })
        },
        enumerable: descriptor.enumerable,
        configurable: false,
      })
    }
  }
  // Then every object the global object holds (constructors, namespaces, functions), each constructor's
  // prototype, and the intrinsics no global names (async and generator functions, iterators), each with its
  // prototype chain. Method functions are left extensible: a property added to one is of no use to anyone.
  const seen = new Set()
  const freezeChain = (value) => {
    for (let item = value; (typeof item === 'object' || typeof item === 'function') && item !== null && !seen.has(item); item = getPrototypeOf(item)) {
      seen.add(item)
      freeze(item)
      if (typeof item === 'function') {
        const prototype = getOwnPropertyDescriptor(item, 'prototype')
        if (prototype !== undefined) freezeChain(prototype.value)
      }
    }
  }
  const roots = [
    async function () {},
    function* () {},
    async function* () {},
    [].values(),
    new Map().entries(),
    new Set().values(),
    ''[Symbol.iterator](),
    'a'.matchAll(/a/g),
    (function* () {})(),
    (async function* () {})(),
    Promise.resolve(),
  ]
  for (const key of ownKeys(g)) {
    const descriptor = getOwnPropertyDescriptor(g, key)
    if (descriptor !== undefined && 'value' in descriptor && descriptor.value !== globals) roots.push(descriptor.value)
  }
  for (const root of roots) freezeChain(root)
  for (const name of ['Math', 'JSON', 'Reflect', 'console', 'tools']) {
    for (const key of ownKeys(g[name])) {
      const descriptor = getOwnPropertyDescriptor(g[name], key)
      if (descriptor !== undefined && 'value' in descriptor) freezeChain(descriptor.value)
    }
  }
  freezeChain(g)

  const describe = (error) => {
    const info = { name: 'Error', message: '' }
    try {
      if (error instanceof Error) {
        info.name = String(error.name)
        info.message = String(error.message)
        if (typeof error.stack === 'string') info.stack = error.stack
        for (const key of ['code', 'toolId', 'phase', 'by', 'instruction', 'limit']) {
          if (typeof error[key] === 'string') info[key] = error[key]
        }
        if (error instanceof ToolCallError) info.host = true
      } else {
        info.name = 'Thrown'
        info.message = inspect(error)
      }
    } catch (problem) {
      info.message = 'an error that could not be read'
    }
    // A message reaches the model through the result: it is cut like any output (and a stack is only read
    // for its line).
    if (info.message.length > maxText) info.message = info.message.slice(0, maxText) + ' [cut at ' + maxText + ' characters]'
    if (typeof info.stack === 'string' && info.stack.length > 2048) info.stack = info.stack.slice(0, 2048)
    if (info.name.length > 200) info.name = info.name.slice(0, 200)
    return stringify(info)
  }
  const run = (main) =>
    main().then(
      (value) => {
        if (value === undefined) return '{"ok":true}'
        let json
        try {
          json = stringify(value)
        } catch (error) {
          throw { notJson: true, message: error instanceof Error ? error.message : inspect(error) }
        }
        if (json === undefined) throw { notJson: true, message: 'a ' + typeof value + ' has no JSON form' }
        return '{"ok":true,"value":' + json + '}'
      },
      (error) => { throw describe(error) },
    ).then(undefined, (error) => {
      if (typeof error === 'string') throw error
      if (error !== null && typeof error === 'object' && error.notJson === true) {
        throw stringify({ name: 'TypeError', message: 'The script returned a value that is not JSON: ' + error.message, notJson: true })
      }
      throw describe(error)
    })
  // Why a kept global is not plain JSON (undefined when it is); never reads a getter.
  const problemOf = (value, path, depth, open) => {
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined
    if (typeof value === 'number') return value === value && value !== Infinity && value !== -Infinity ? undefined : path + ' is ' + String(value)
    if (typeof value === 'function') return path + ' is a function'
    if (typeof value !== 'object') return path + ' is ' + (value === undefined ? 'undefined' : 'a ' + typeof value)
    if (depth > 100) return path + ' is nested deeper than 100 levels'
    if (open.indexOf(value) !== -1) return path + ' refers back to one of its parents (a cycle)'
    const array = Array.isArray(value)
    const prototype = getPrototypeOf(value)
    if (!array && prototype !== Object.prototype && prototype !== null) {
      const ctor = prototype && getOwnPropertyDescriptor(prototype, 'constructor')
      const name = ctor && typeof ctor.value === 'function' ? ctor.value.name : ''
      return path + ' is ' + (name ? 'a ' + name : 'an object with a prototype') + ', not plain data'
    }
    open.push(value)
    try {
      const keys = ownKeys(value)
      if (array) {
        for (let index = 0; index < value.length; index++) {
          const descriptor = getOwnPropertyDescriptor(value, String(index))
          if (descriptor === undefined) return path + '[' + index + '] is a hole'
          if (!('value' in descriptor)) return path + '[' + index + '] is a getter'
          const problem = problemOf(descriptor.value, path + '[' + index + ']', depth + 1, open)
          if (problem !== undefined) return problem
        }
        return keys.length === value.length + 1 ? undefined : path + ' has properties besides its items'
      }
      for (const key of keys) {
        if (typeof key === 'symbol') return path + ' has a symbol key'
        const descriptor = getOwnPropertyDescriptor(value, key)
        if (!('value' in descriptor)) return path + '.' + key + ' is a getter'
        if (!descriptor.enumerable) return path + '.' + key + ' is not enumerable'
        const problem = problemOf(descriptor.value, path + '.' + key, depth + 1, open)
        if (problem !== undefined) return problem
      }
      return undefined
    } finally {
      open.pop()
    }
  }
  const capture = () => {
    const parts = []
    const dropped = []
    for (const key of ownKeys(globals)) {
      if (typeof key === 'symbol') {
        dropped.push({ key: String(key), problem: 'globals[' + String(key) + '] has a symbol key' })
        continue
      }
      const descriptor = getOwnPropertyDescriptor(globals, key)
      // A key set to undefined is a deletion.
      if ('value' in descriptor && descriptor.value === undefined) continue
      const problem = 'value' in descriptor ? problemOf(descriptor.value, 'globals.' + key, 0, []) : 'globals.' + key + ' is a getter'
      if (problem !== undefined) dropped.push({ key, problem })
      else parts.push(stringify(key) + ':' + stringify(descriptor.value))
    }
    return '{"values":{' + parts.join(',') + '},"dropped":' + stringify(dropped) + '}'
  }
  return { run, describe, capture }
})`
