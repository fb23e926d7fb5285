/**
 * The program of an engine worker: a worker thread that owns one QuickJS WebAssembly module (in a memory
 * of bounded size) and runs one execution at a time in a fresh runtime. It is plain JavaScript kept as a
 * string (like the prelude) and started with `new Worker(source, { eval: true })`, so it works the same
 * from the sources, the built package and any bundle.
 *
 * The host owns everything that is not the script: wall time (it terminates the worker), host calls (the
 * worker posts them and waits for answers), the recording. The worker owns the script's CPU time (its
 * interrupt handler), the size of every string it copies out of the engine (checked on the engine's side
 * first), the host-call count (a call past the limit interrupts the script), and the order in which host
 * results reach the script (call order).
 *
 * Messages, host to worker: `run`, `answer { n, text }`, `wait { n }`. Worker to host: `ready`,
 * `unavailable { message }`, `started`, `log { level, text }`, `call { n, toolId, json }`, `end { ... }`.
 */
export const WORKER_SOURCE = String.raw`'use strict'
const { parentPort, workerData } = require('node:worker_threads')
const encoder = new TextEncoder()
const utf8Length = (text) => {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return encoder.encode(text).length
  return text.length
}
let module
let inbox = []
let wake
parentPort.on('message', (message) => {
  if (message.t === 'run') {
    run(message).then(
      (end) => parentPort.postMessage(end),
      (error) => parentPort.postMessage({ t: 'end', kind: 'engine', message: String(error && error.message), reusable: false }),
    )
    return
  }
  inbox.push(message)
  const resume = wake
  wake = undefined
  if (resume) resume()
})

// The engine's own diagnostics (an abort's assertion text) are not the host's output: the worker's stdout
// and stderr write nothing (console writes go through them too). Done here rather than by capturing the
// worker's streams in the host, whose open stream ports would keep an idle engine's process alive.
process.stdout.write = () => true
process.stderr.write = () => true

import(workerData.quickjsUrl).then(async (lib) => {
  const memory = new WebAssembly.Memory({ initial: 256, maximum: workerData.wasmPages })
  module = await lib.newQuickJSWASMModule(lib.newVariant(lib.RELEASE_SYNC, { wasmMemory: memory }))
  parentPort.postMessage({ t: 'ready' })
}).catch((error) => {
  parentPort.postMessage({ t: 'unavailable', message: String(error && error.message) })
})

function nativeFailure(error) {
  return error instanceof RangeError || error instanceof WebAssembly.RuntimeError || /^Aborted\(/.test(String(error && error.message))
}

async function run(job) {
  const L = job.limits
  inbox = []
  const calls = []
  const handles = []
  let runtime, ctx
  let cpuUsed = 0
  let sliceStart = 0
  let counting = false
  let interrupted
  let logBytes = 0
  let logsCut = false
  let inputBytes = 0
  let end
  let reusable = true
  const slice = (work) => {
    sliceStart = performance.now()
    try {
      return work()
    } finally {
      if (counting) cpuUsed += performance.now() - sliceStart
      sliceStart = 0
    }
  }
  // The length (UTF-16 units) of a string the engine holds, read without copying it out.
  const lengthOf = (handle) => {
    const length = ctx.getProp(handle, 'length')
    const value = ctx.getNumber(length)
    length.dispose()
    return value
  }
  try {
    runtime = module.newRuntime()
    runtime.setMemoryLimit(L.memoryBytes)
    runtime.setMaxStackSize(L.stackBytes)
    runtime.setInterruptHandler(() => {
      if (interrupted !== undefined) return true
      if (sliceStart === 0 || !counting) return false
      if (cpuUsed + (performance.now() - sliceStart) > L.cpuTimeMs) {
        interrupted = 'cpuTime'
        return true
      }
      return false
    })
    ctx = runtime.newContext()
    const hostLog = ctx.newFunction('log', (levelHandle, textHandle) => {
      if (logsCut) return
      const level = ctx.getString(levelHandle)
      if (logBytes + lengthOf(textHandle) + 1 > L.maxLogBytes) {
        logsCut = true
      } else {
        const text = ctx.getString(textHandle)
        const size = utf8Length(text) + 1
        if (logBytes + size > L.maxLogBytes) logsCut = true
        else {
          logBytes += size
          parentPort.postMessage({ t: 'log', level, text })
          return
        }
      }
      parentPort.postMessage({ t: 'log', level: 'warn', text: '[console output cut at ' + L.maxLogBytes + ' bytes]' })
    })
    handles.push(hostLog)
    const hostCall = ctx.newFunction('call', (idHandle, inputHandle) => {
      const deferred = ctx.newPromise()
      const n = calls.length + 1
      calls.push({ n, deferred, answer: undefined, waiting: false })
      if (n > L.maxHostCalls) {
        interrupted = 'hostCalls'
        return deferred.handle
      }
      if (inputBytes + lengthOf(inputHandle) > L.maxRecordingBytes) {
        interrupted = 'recording'
        return deferred.handle
      }
      const json = ctx.getString(inputHandle)
      inputBytes += utf8Length(json)
      if (inputBytes > L.maxRecordingBytes) {
        interrupted = 'recording'
        return deferred.handle
      }
      parentPort.postMessage({ t: 'call', n, toolId: ctx.getString(idHandle), json })
      return deferred.handle
    })
    handles.push(hostCall)
    const prelude = slice(() => ctx.unwrapResult(ctx.evalCode(job.prelude, 'sandbox-prelude.js', { type: 'global' })))
    handles.push(prelude)
    const args = [
      ctx.newString(job.ids),
      ctx.newString(job.declarable),
      ctx.newNumber(job.seed),
      ctx.newNumber(job.now),
      ctx.newNumber(job.maxText),
    ]
    handles.push(...args)
    const globalsArg = job.globals === undefined ? ctx.undefined : ctx.newString(job.globals)
    if (job.globals !== undefined) handles.push(globalsArg)
    const api = slice(() => ctx.unwrapResult(ctx.callFunction(prelude, ctx.undefined, hostCall, hostLog, ...args, globalsArg)))
    handles.push(api)
    const runFn = ctx.getProp(api, 'run')
    const describe = ctx.getProp(api, 'describe')
    const capture = ctx.getProp(api, 'capture')
    handles.push(runFn, describe, capture)
    // Kept globals, read once the script ended (fulfilled or rejected): their JSON text, or why not.
    const captureGlobals = (end) => {
      if (job.globals === undefined) return end
      const captured = slice(() => ctx.callFunction(capture, ctx.undefined))
      if (captured.error) {
        captured.error.dispose()
        end.globalsProblem = interrupted === 'cpuTime' ? 'reading them took the rest of the CPU time' : 'they could not be read'
        interrupted = undefined
        return end
      }
      if (lengthOf(captured.value) > 4 * L.maxOutputBytes) end.globalsProblem = 'they are larger than ' + L.maxOutputBytes + ' bytes of JSON'
      else {
        const text = ctx.getString(captured.value)
        if (utf8Length(text) - 24 > L.maxOutputBytes) end.globalsProblem = 'they are larger than ' + L.maxOutputBytes + ' bytes of JSON'
        else end.globals = text
      }
      captured.value.dispose()
      return end
    }
    // A described error is short (the prelude cuts messages and stacks); anything else is not copied.
    const readDescribed = (handle) => {
      if (ctx.typeof(handle) !== 'string' || lengthOf(handle) > 16 * job.maxText + 4096) return '{"name":"Error","message":"an error that could not be read"}'
      return ctx.getString(handle)
    }

    parentPort.postMessage({ t: 'started' })
    counting = true
    const compiled = slice(() => ctx.evalCode(job.code, 'script.ts', { type: 'global' }))
    if (compiled.error) {
      const text = slice(() => ctx.unwrapResult(ctx.callFunction(describe, ctx.undefined, compiled.error)))
      compiled.error.dispose()
      end = { kind: 'compile', text: readDescribed(text) }
      text.dispose()
      return end
    }
    if (interrupted !== undefined) return (end = { kind: 'limit', limit: interrupted })
    handles.push(compiled.value)
    const promise = slice(() => ctx.unwrapResult(ctx.callFunction(runFn, ctx.undefined, compiled.value)))
    handles.push(promise)
    let delivered = 0
    for (;;) {
      const jobs = slice(() => runtime.executePendingJobs())
      if (jobs.error) jobs.error.dispose()
      if (interrupted !== undefined) return (end = { kind: 'limit', limit: interrupted })
      for (const message of inbox) {
        const call = calls[message.n - 1]
        if (message.t === 'answer') call.answer = message.text
        else if (message.t === 'wait') call.waiting = true
      }
      inbox = []
      let progressed = false
      while (delivered < calls.length && calls[delivered].answer !== undefined) {
        const call = calls[delivered]
        const text = ctx.newString(call.answer)
        call.answer = null
        call.deferred.resolve(text)
        text.dispose()
        call.deferred.dispose()
        delivered++
        progressed = true
      }
      if (progressed) continue
      const state = ctx.getPromiseState(promise)
      const unsettled = calls.some((call) => call.answer === undefined && !call.waiting)
      if (state.type === 'fulfilled') {
        if (!unsettled) {
          const length = lengthOf(state.value)
          end = length - 20 > L.maxOutputBytes ? { kind: 'output' } : { kind: 'fulfilled', text: ctx.getString(state.value) }
        }
        state.value.dispose()
        if (end) return end.kind === 'fulfilled' ? captureGlobals(end) : end
      } else if (state.type === 'rejected') {
        if (!unsettled) {
          const error = state.error
          if (ctx.typeof(error) === 'string') end = { kind: 'rejected', text: readDescribed(error) }
          else {
            const described = slice(() => ctx.unwrapResult(ctx.callFunction(describe, ctx.undefined, error)))
            end = { kind: 'rejected', text: readDescribed(described) }
            described.dispose()
          }
        }
        state.error.dispose()
        if (end) return captureGlobals(end)
      }
      if (!unsettled) return (end = { kind: 'stuck' })
      await new Promise((resolve) => {
        if (inbox.length > 0) resolve()
        else wake = resolve
      })
    }
  } catch (error) {
    if (nativeFailure(error)) {
      reusable = false
      return (end = { kind: 'engine', native: error instanceof RangeError, message: String(error && error.message) })
    }
    if (interrupted !== undefined) return (end = { kind: 'limit', limit: interrupted })
    const message = error instanceof Error ? error.message : String(error)
    return (end = { kind: 'thrown', name: error instanceof Error ? error.name : 'Error', message: message.slice(0, job.maxText) })
  } finally {
    if (reusable) {
      try {
        for (const call of calls) if (call.deferred.alive) call.deferred.dispose()
        for (const handle of handles.reverse()) if (handle.alive) handle.dispose()
        if (ctx) ctx.dispose()
        if (runtime) runtime.dispose()
      } catch {
        reusable = false
      }
    }
    if (end) {
      end.t = 'end'
      end.reusable = reusable
      end.cpuMs = cpuUsed
      end.engineBytes = module.getWasmMemory().buffer.byteLength
    }
  }
}
`
