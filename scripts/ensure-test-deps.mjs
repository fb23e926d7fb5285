/**
 * Runs before `pnpm test`. The browser test of MockGPT's web handler needs a Chromium binary; the npm
 * registry has none that installs here, so on Debian/Ubuntu as root this installs the distribution's
 * `chromium` package when it is missing. Anywhere else it says what to install and lets the test fail
 * with the same message. Set AGENT_CORE_SKIP_CHROMIUM_INSTALL=1 to never install.
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
if (!existsSync(CHROMIUM) && process.env.AGENT_CORE_SKIP_CHROMIUM_INSTALL !== '1') {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
  if (isRoot && existsSync('/usr/bin/apt-get')) {
    console.log('[pretest] installing Debian chromium for the browser test (apt-get, one time)...')
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env })
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], {
      stdio: 'inherit',
      env,
    })
  } else {
    console.warn(
      `[pretest] ${CHROMIUM} is missing: install Chromium (Debian: apt-get install chromium) or set CHROMIUM_PATH; the browser test will fail without it.`,
    )
  }
}
