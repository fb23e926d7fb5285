/**
 * The example page in headless Chromium (Debian's `chromium`, driven by playwright-core): the AI SDK's own
 * client streams the agent's text, shows the survey tool's progress and the publish tool's approval
 * button; a click on it resumes the run on the server and finishes it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ChatApp, startChatApp } from './src/server.js'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Records, inside the page, every distinct text of the first assistant reply and every progress message. */
const WATCH = () => {
  const seen = { texts: [] as string[], progress: [] as string[] }
  ;(window as unknown as { seen: typeof seen }).seen = seen
  new MutationObserver(() => {
    const text = document.querySelector('.message.assistant .text')?.textContent ?? ''
    if (text !== '' && seen.texts.at(-1) !== text) seen.texts.push(text)
    for (const node of document.querySelectorAll('.progress-message')) {
      const message = node.textContent ?? ''
      if (message !== '' && !seen.progress.includes(message)) seen.progress.push(message)
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true })
}

describe('example chat page in headless Chromium', () => {
  let app: ChatApp
  let context: BrowserContext | undefined
  let profile: string | undefined

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium is not installed at ${CHROMIUM}. Install it (apt-get install -y chromium) or set CHROMIUM_PATH.`,
      )
    }
    app = await startChatApp()
    profile = mkdtempSync(join(tmpdir(), 'chat-ui-chromium-'))
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
      ],
    })
  })

  afterAll(async () => {
    await context?.close()
    await app?.close()
    if (profile) rmSync(profile, { recursive: true, force: true })
  })

  async function open(): Promise<{ page: Page; errors: string[] }> {
    const page = await (context as BrowserContext).newPage()
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    await page.goto(app.url)
    await page.evaluate(WATCH)
    return { page, errors }
  }

  it('streams text, shows progress and an approval button; approving finishes the run', async () => {
    const { page, errors } = await open()
    await page.click('#send')
    // The survey ran with its progress, then the publish call waits for a person.
    const approve = page.locator('.tool[data-state="approval-requested"] button.approve')
    await approve.waitFor({ timeout: 20_000 })
    const before = (await page.evaluate(() => (window as unknown as { seen: unknown }).seen)) as {
      texts: string[]
      progress: string[]
    }
    // The first reply arrived in pieces: each text seen is a prefix of the next.
    expect(before.texts.at(-1)).toBe('Let me survey the sources first.')
    expect(before.texts.length).toBeGreaterThan(1)
    for (let i = 1; i < before.texts.length; i++)
      expect(before.texts[i]!.startsWith(before.texts[i - 1]!)).toBe(true)
    // Progress updates in order, ending on the last one, which stays visible.
    const all = ['Read tide tables (1/3)', 'Read harbour notices (2/3)', 'Read weather buoys (3/3)']
    expect(before.progress.length).toBeGreaterThan(0)
    expect(before.progress.at(-1)).toBe(all[2])
    expect(before.progress.every((m, i) => all.indexOf(m) >= i)).toBe(true)
    expect(await page.locator('.progress-message').textContent()).toBe(all[2])
    expect(await page.locator('.message.assistant').getAttribute('data-reason')).toBe('suspended')

    await approve.click()
    await page.locator('.message.assistant[data-reason="final"]').waitFor({ timeout: 20_000 })
    expect(await page.locator('.message.assistant').count()).toBe(1) // the same message, continued
    expect(
      await page.locator('.tool[data-state="output-available"] .tool-output').last().textContent(),
    ).toContain('is on the harbour board')
    expect(await page.locator('.message.assistant .text').last().textContent()).toBe(
      'The spring tides report is published on the harbour board.',
    )
    expect(await page.locator('button.approve').count()).toBe(0)
    expect(errors).toEqual([])
    await page.close()
  })

  it('refusing sends the refusal to the model', async () => {
    const { page, errors } = await open()
    await page.click('#send')
    const refuse = page.locator('.tool[data-state="approval-requested"] button.refuse')
    await refuse.waitFor({ timeout: 20_000 })
    await refuse.click()
    await page.locator('.message.assistant[data-reason="final"]').waitFor({ timeout: 20_000 })
    expect(await page.locator('.tool[data-state="output-denied"]').count()).toBe(1)
    expect(await page.locator('.message.assistant .text').last().textContent()).toBe(
      'The report was not published: you refused it.',
    )
    expect(errors).toEqual([])
    await page.close()
  })
})
