import assert from 'node:assert/strict'
import { defineTextSkillLoader } from '@agent-core/kits/text-skills'

const files = new Map([['skills/triage.md', '# Triage\nSort a new issue by area.\n\n1. Label it.\n']])
const skills = defineTextSkillLoader({ tools: ['label'] }).load(
  { entries: [{ id: 'triage', kind: 'text-workflow', entry: 'skills/triage.md', toolIds: ['label'] }] },
  { read: (path) => files.get(path) ?? '' },
)
assert.equal(skills.require('triage').catalog.description, 'Sort a new issue by area.')
