import assert from 'node:assert/strict'
import { TextSearch } from '@agent-core/kits/search'

interface Article {
  id: string
  title: string
  body: string
  url: string
  draft: boolean
}

const articles = new TextSearch<Article>({
  indexRevision: 'articles-v1', // change it when you change how documents are indexed
  fields: ['title', 'body'], // indexed
  storedFields: ['title', 'url', 'draft'], // returned with each hit
  searchOptions: { boost: { title: 2 } }, // defaults for every search
})

articles.addAll([
  {
    id: 'a1',
    title: 'Deploying to Cloud Foundry',
    body: 'Push the app with the cf CLI.',
    url: '/cf',
    draft: false,
  },
  {
    id: 'a2',
    title: 'Local preview',
    body: 'Run the app locally before you deploy it.',
    url: '/preview',
    draft: false,
  },
  { id: 'a3', title: 'Deploy checklist', body: 'Work in progress.', url: '/checklist', draft: true },
])

const hits = articles.search({ query: 'deploy', limit: 10 })
assert.deepEqual(
  hits.map((hit) => hit.id),
  ['a3', 'a2'],
)
// A hit carries the stored fields only, never the body.
assert.deepEqual(hits[0]?.document, { title: 'Deploy checklist', url: '/checklist', draft: true })

// A filter sees a copy of the stored fields and must answer true or false synchronously.
const published = articles.search({ query: 'deploy', limit: 10, filter: (doc) => doc.draft === false })
assert.deepEqual(
  published.map((hit) => hit.id),
  ['a2'],
)

// minisearch's query options stay available per request: prefix, fuzzy, boost, combineWith, fields, ...
assert.equal(articles.search({ query: 'deplo', limit: 10 }).length, 0)
assert.equal(articles.search({ query: 'deplo', limit: 10, prefix: true }).length, 3)
assert.equal(
  articles.search({ query: 'cloud foundri', limit: 10, fuzzy: 0.2, combineWith: 'AND' })[0]?.id,
  'a1',
)
