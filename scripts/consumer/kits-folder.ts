import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chunkFiles, loadFolder } from '@agent-core/kits/folder'

const root = mkdtempSync(join(tmpdir(), 'consumer-folder-'))
writeFileSync(join(root, 'a.md'), '# A\nHello.\n')
const { files, failures } = await loadFolder({ root })
assert.equal(files.length, 1)
assert.equal(failures.length, 0)
assert.equal(chunkFiles(files, { targetChars: 100 })[0]?.forced, false)
rmSync(root, { recursive: true, force: true })
