import { readFileSync, readlinkSync } from 'node:fs'
import { hostname } from 'node:os'

/**
 * This process's host as recorded in a lease row: the host name and, on Linux, the PID namespace
 * (`pid:[4026531836]`), so that a process in another container that shares the database file and the host
 * name is never taken for a process of this one.
 */
export const HOST_ID: string = (() => {
  let namespace = ''
  try {
    namespace = readlinkSync('/proc/self/ns/pid')
  } catch {
    // Not Linux, or /proc is not mounted: the host name alone identifies the host.
  }
  return namespace ? `${hostname()} ${namespace}` : hostname()
})()

/**
 * True only when `pid` certainly names no running process on this host: `kill(pid, 0)` finds none, or
 * `/proc` shows it exited and awaits reaping (a zombie). Any doubt (no permission, no `/proc`) is
 * "alive", so a lease is never taken from a process that may still run.
 */
export function processIsGone(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return false
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
    return state === 'Z' || state === 'X'
  } catch {
    return false
  }
}
