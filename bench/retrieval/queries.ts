/**
 * The retrieval benchmark's query set, written by hand as a user would ask, before any method was run on
 * it. Each query names the document and an `anchor`: an exact piece of that document's text. The one
 * relevant passage is the passage whose range holds the anchor's start, so the set does not depend on
 * how passages are cut.
 *
 * - `paraphrase`: a question in the asker's own words, sharing no rare word with the passage (the
 *   benchmark checks this and reports any query that breaks the rule);
 * - `keyword`: a lookup with the words or identifiers the passage itself uses.
 */

export interface Query {
  readonly corpus: 'fiori' | 'agent-core-docs'
  readonly kind: 'paraphrase' | 'keyword'
  readonly query: string
  readonly document: string
  readonly anchor: string
}

const docs = (kind: Query['kind'], query: string, document: string, anchor: string): Query => ({
  corpus: 'agent-core-docs',
  kind,
  query,
  document,
  anchor,
})

/** `chunk` names a Fiori record without its `local-` prefix and `-chunk-0` suffix. */
const fiori = (kind: Query['kind'], query: string, chunk: string, anchor: string): Query => ({
  corpus: 'fiori',
  kind,
  query,
  document: `local-${chunk}-chunk-0`,
  anchor,
})

const P = 'paraphrase'
const K = 'keyword'

export const QUERIES: readonly Query[] = [
  // This repository's guides (frozen copy).
  docs(
    P,
    'how do I turn on console logging for only some parts of my app',
    'core.md',
    'Console output is off unless the environment variable',
  ),
  docs(
    P,
    'what happens if the same unit of work is finished twice, do I get two end events',
    'core.md',
    'later calls are ignored, so a `finally` may safely end a span',
  ),
  docs(
    P,
    'is a retry given back when the request fails',
    'core.md',
    'takes one unit synchronously, before any I/O',
  ),
  docs(
    P,
    'how can I tell which kind of failure I got when two copies of the library are installed',
    'core.md',
    'which works even when two copies of the package are loaded',
  ),
  docs(
    P,
    'does giving up on waiting mean the background job really stopped',
    'core.md',
    'cancellation interrupts the wait; it does not prove the work stopped',
  ),
  docs(K, 'span spanId parentSpanId tool-call-start', 'core.md', 'emits `tool-call-start` now'),
  docs(K, 'registerAll atomic sealed idPattern assertDefinition', 'core.md', '`registerAll` is atomic'),
  docs(K, 'assertNotThenable unhandled rejection', 'core.md', '`assertNotThenable` rejects one'),
  docs(
    K,
    'childContext named sub-scope diagnostics',
    'core.md',
    "`childContext(context, 'loop')` opens a named sub-scope",
  ),
  docs(
    P,
    'can I run the fake model server inside a web page',
    'mock.md',
    'has no Node dependencies: bundle it for the browser',
  ),
  docs(
    P,
    'how are the usage numbers computed if it is not the real tokenizer',
    'mock.md',
    'a run of letters counts one token per 4 characters',
  ),
  docs(
    P,
    'why do two simultaneous requests sometimes get each other’s identifiers',
    'mock.md',
    'Concurrent requests therefore keep their content but may swap ids.',
  ),
  docs(
    P,
    'what does the simulator answer when my response format uses conditional keywords it cannot handle',
    'mock.md',
    'cannot generate for (for example `not`, `if`/`then`, `patternProperties`)',
  ),
  docs(
    P,
    'is a prepared answer used up after it replied once',
    'mock.md',
    '`times` matches (default 1; `Infinity` keeps it)',
  ),
  docs(
    P,
    'does the fake server cut structured answers short when the length limit is reached',
    'mock.md',
    'JSON answers are never cut by `max_tokens` or stop sequences',
  ),
  docs(
    K,
    'chaos rate faults retry-after-ms',
    'mock.md',
    'fails that fraction of model requests with a fault picked from',
  ),
  docs(
    K,
    'insufficient_quota 429 error.usage maxTokens',
    'mock.md',
    'gets a 429 `insufficient_quota` whose `error.usage` holds the usage so far',
  ),
  docs(
    K,
    '/_mock/requests /_mock/reset admin routes API key',
    'mock.md',
    'Admin routes are not recorded and need no API key',
  ),
  docs(K, 'stream_options include_usage [DONE]', 'mock.md', '`stream_options.include_usage` is set'),
  docs(K, 'mockgpt --help --chaos-rate --max-calls', 'mock.md', '`mockgpt --help` explains every flag'),
  docs(
    K,
    'POST /v1/embeddings encoding_format base64',
    'mock.md',
    '`POST /v1/embeddings` returns deterministic unit vectors',
  ),
  docs(
    P,
    'is there a way to make a billing then delivery workflow resume safely after the process dies',
    'kits--durable.md',
    'Multi-step work with side effects that must not happen twice',
  ),
  docs(
    P,
    'does the initial value matter when a job is started again after a restart',
    'kits--durable.md',
    '`input` only matters the first time: it creates the task.',
  ),
  docs(
    P,
    'will the library kick off pending jobs by itself on a timer',
    'kits--durable.md',
    'Nothing runs on its own.',
  ),
  docs(
    P,
    'if a worker dies while a step is half done, where does the next execution pick up',
    'kits--durable.md',
    'the stored checkpoint points at the step that was running',
  ),
  docs(
    P,
    'can a later execution grant itself more retries or extend the time limit',
    'kits--durable.md',
    'a later run cannot add attempts or move the deadline',
  ),
  docs(
    P,
    'what happens when a stop request arrives in the middle of writing progress',
    'kits--durable.md',
    'A save that has started always finishes inside the lease',
  ),
  docs(
    K,
    'exclusive load save durable store',
    'kits--durable.md',
    'any object with `exclusive`, `load` and `save` works',
  ),
  docs(
    K,
    'replayPolicy reconcile run(state, context)',
    'kits--durable.md',
    'A step is `{ id, replayPolicy, run(state, context), reconcile? }`',
  ),
  docs(K, 'reconcile-missing details.reason', 'kits--durable.md', "(`details.reason: 'reconcile-missing'`)"),
  docs(
    K,
    'modelBudget maxCallsPerAttempt reservedCalls',
    'kits--durable.md',
    'Each attempt reserves `min(maxCallsPerAttempt, maxCalls - reservedCalls)` calls',
  ),
  docs(
    K,
    'createSqliteDurableStore WAL better-sqlite3 Database',
    'kits--durable.md',
    '`createSqliteDurableStore(pathOrDatabase, options?)` keeps checkpoints in a SQLite file',
  ),
  docs(
    P,
    'I want every rule that fires reported, not only the first one',
    'kits--policies.md',
    'It does not stop at the first match',
  ),
  docs(
    P,
    'my rule check returns 1 instead of true, why is it refused',
    'kits--policies.md',
    '`when` must return a real boolean',
  ),
  docs(
    K,
    'require UnknownIdError known ids sealed',
    'kits--policies.md',
    '`require` throws `UnknownIdError` listing the',
  ),
  docs(
    P,
    'the final step of my outgoing pipeline says keep going, what happens',
    'kits--delivery.md',
    '`continue` from the last stage is an `InvalidOutputError` naming the stage.',
  ),
  docs(
    P,
    'should my output steps talk to the network themselves',
    'kits--delivery.md',
    'Do the I/O (sending the message,',
  ),
  docs(K, 'deliver value stageId', 'kits--delivery.md', '`deliver` returns `{ value, stageId }`'),
  docs(
    P,
    'what if even the short replacement text is too long for the limit',
    'kits--projection.md',
    'If it does not, or if there is no fallback, `project` throws `BudgetExhaustedError`',
  ),
  docs(
    K,
    'project value maxChars named request',
    'kits--projection.md',
    '`project({ value, maxChars })` is a named request.',
  ),
  docs(
    P,
    'why can I not simply add the keyword relevance and the similarity together',
    'kits--search.md',
    'Lexical and vector scores live on different scales',
  ),
  docs(
    P,
    'how fast is brute force nearest neighbour lookup on one processor',
    'kits--search.md',
    '2 to 3 million 384-dimensional vectors per second on one core',
  ),
  docs(
    K,
    'rankWindow limit weight reciprocalRankFusion options',
    'kits--search.md',
    'Options: `k` (a finite number of at least 0), `rankWindow`',
  ),
  docs(K, 'TextSearch.remove async vacuum', 'kits--search.md', '`TextSearch.remove` is async'),
  docs(
    P,
    'where do the empty lines between paragraphs end up',
    'kits--text-blocks.md',
    'the separators have to go somewhere',
  ),
  docs(
    P,
    'my shell snippet has lines starting with a hash sign, will they be read as titles',
    'kits--text-blocks.md',
    'Code fences are not in the contract',
  ),
  docs(
    K,
    'targetChars UTF-16 code units offsets',
    'kits--text-blocks.md',
    'Offsets and `targetChars` count UTF-16 code units',
  ),
  docs(
    P,
    'when results of several lookups are merged, which position does a repeated item keep',
    'kits--aggregation.md',
    'An item appears at the',
  ),
  docs(
    K,
    'parse value allowed candidate envelope',
    'kits--candidates.md',
    '`parse({ value, allowed })` always returns an array',
  ),
  docs(
    P,
    'can the cleanup of a value stop early once nothing more is needed',
    'kits--normalization.md',
    'an optional `isComplete` decision ends the run',
  ),
  docs(
    P,
    'how do I try fallbacks in order until one of them handles the error',
    'kits--recovery.md',
    '`tryRecover(input)` asks the',
  ),
  docs(
    K,
    'TextSkillEntry kind text-workflow toolIds',
    'kits--text-skills.md',
    "A registration (`TextSkillEntry`) is `{ id, kind: 'text-workflow', entry, toolIds }`",
  ),
  docs(
    P,
    'what happens to the jobs of a worker whose database connection drops',
    'kits--durable-postgres.md',
    'a worker that crashes or loses its',
  ),
  docs(
    K,
    'pg optional peer dependency @types/pg',
    'kits--durable-postgres.md',
    '`pg` is an optional peer dependency of `@agent-core/kits`',
  ),
  docs(
    P,
    'can the simulator engine run without any sockets, for example in a browser tab',
    'design--mock.md',
    'The\nengine imports no `node:` module',
  ),
  docs(
    K,
    'createOperationContext partial context defaults',
    'design--core.md',
    'OperationContext` is an interface, not a class',
  ),

  // SAP Fiori documentation chunks.
  fiori(
    P,
    'can I try my already published app inside the company tile home page without pushing it again',
    'btp-fiori-tools-100',
    'without redeploying the app',
  ),
  fiori(
    K,
    'Fiori: Add FLP Embedded Configuration BSP',
    'btp-fiori-tools-100',
    'Command: Fiori: Add FLP Embedded Configuration',
  ),
  fiori(
    K,
    'deploy HTML5 Repository Cloud Foundry SAPUI5 Repository ABAP',
    'btp-fiori-tools-0',
    'to ABAP systems (via the SAPUI5 Repository) and to SAP Business Technology Platform Cloud Foundry (via the HTML5 Repository)',
  ),
  fiori(
    P,
    'is there an assistant that walks me through adding features to my app one step at a time',
    'btp-fiori-tools-26',
    'Step-by-step, code-focused reference for using the Fiori Tools "Develop with a Guide" feature.',
  ),
  fiori(
    K,
    'remove orphaned annotations UI.FieldGroup UI.ReferenceFacet cleanup',
    'btp-fiori-tools-52',
    'The cleanup removes orphaned UI annotations (UI.FieldGroup, UI.LineItem) that are not referenced by UI.ReferenceFacet targets',
  ),
  fiori(
    P,
    'how do I get rid of leftover decorations in my service metadata that nothing points to anymore',
    'btp-fiori-tools-52',
    'This document describes a deterministic cleanup procedure',
  ),
  fiori(
    P,
    'where do I choose what the created screen file will be called',
    'btp-fiori-tools-78',
    'provide a unique View name that the generator will use to create the SAPUI5 view file',
  ),
  fiori(
    K,
    'launch.json multi-root workspace Run and Debug',
    'btp-fiori-tools-104',
    'The Run and Debug view only reads a single launch.json',
  ),
  fiori(
    K,
    'adaptation project local annotation file Adaptation Editor',
    'btp-fiori-tools-130',
    'Two methods are supported: using the Adaptation Project wizard (from the manifest) and using the Adaptation Editor (UI Adaptation mode).',
  ),
  fiori(
    P,
    'what do I need before I can customize a standard cloud application without touching its original code',
    'btp-fiori-tools-156',
    'to extend SAP Fiori elements or freestyle SAPUI5 applications by producing an application variant',
  ),
  fiori(
    K,
    'add eslint-config @sap-ux/eslint-plugin-fiori-tools',
    'create-README-5',
    'Add an ESLint configuration to a project including the SAP Fiori tools lint plugin',
  ),
  fiori(
    P,
    'how do I set up code style checks for my project from the command line tool',
    'create-README-5',
    'Add an ESLint configuration to a project including the SAP Fiori tools lint plugin',
  ),
  fiori(
    K,
    'create get system subcommand',
    'create-README-31',
    'Command group for retrieving saved resources. A subcommand is required.',
  ),
  fiori(
    K,
    'headless generator cap_app_config.json approuter',
    'fiori-samples-24',
    'Use the SAP Fiori headless generator to append a UI application and managed approuter configuration to an existing CAP project.',
  ),
  fiori(
    P,
    'can I add a user interface to my existing backend service without clicking through the interactive wizard',
    'fiori-samples-24',
    'Use the SAP Fiori headless generator to append a UI application',
  ),
  fiori(
    P,
    'how can one set of records have several differently configured diagrams',
    'fiori_development_portal-10',
    'Chart qualifiers enable you to define multiple chart annotations on the same entity.',
  ),
  fiori(
    K,
    'filter bar SelectionFields criteria',
    'fiori_development_portal-36',
    'The filter bar enables users to set criteria that limit the data loaded and displayed in a table.',
  ),
  fiori(
    P,
    'show a nice picture with a message when the list comes back empty',
    'fiori_development_portal-62',
    'You can add a custom illustrated message shown once the table shows no data',
  ),
  fiori(
    K,
    'overview page cards manifest.json',
    'fiori_development_portal-88',
    "The cards shown on the overview page are defined in your application's manifest.json file.",
  ),
  fiori(
    P,
    'where do I list the widgets shown on my at-a-glance start screen',
    'fiori_development_portal-88',
    "The cards shown on the overview page are defined in your application's manifest.json file.",
  ),
  fiori(
    K,
    'iExecuteEdit HeaderActions',
    'sap_fe_test_api-17',
    'Executes the Edit action in the header toolbar of an object page.',
  ),
  fiori(
    K,
    'setCustomMessage message strip extensionAPI',
    'sapui5-16',
    'to display custom message strips above tables in SAP Fiori Elements',
  ),
  fiori(
    P,
    'put a warning banner over the grid of a generated list screen',
    'sapui5-16',
    'to display custom message strips above tables in SAP Fiori Elements',
  ),
  fiori(
    K,
    'analytical card AxisScaling fixed axis range DataPoint',
    'sapui5-42',
    'limit fetched chart items, control axis scaling, set fixed axis ranges via DataPoint',
  ),
  fiori(
    K,
    'chart facet controlConfiguration UI.ReferenceFacet UI.Chart',
    'sapui5-68',
    'Includes UI.ReferenceFacet, UI.Chart, manifest.json controlConfiguration settings',
  ),
  fiori(
    K,
    'sap.ovp.cards.linklist listFlavor carousel',
    'sapui5-94',
    'template "sap.ovp.cards.linklist", title, targetUri, listFlavor ("standard" or "carousel")',
  ),
  fiori(
    P,
    'how do I make a tile of my own design with its own controller and view for the start screen',
    'sapui5-120',
    "Create a new folder under your app's webapp/ext to contain the custom card.",
  ),
  fiori(
    P,
    'what does it mean that screens are assembled from the service description instead of hand-written code',
    'sapui5-146',
    'a template- and metadata-driven approach where SAPUI5 interprets OData metadata and annotations to assemble UI',
  ),
  fiori(
    K,
    'semantic date operators TODAY LASTWEEK',
    'sapui5-172',
    'enabling semantic date operators (semantic date ranges like TODAY, LASTWEEK) in the filter bar',
  ),
  fiori(
    P,
    'let people filter by relative periods such as yesterday or this month',
    'sapui5-172',
    'enabling semantic date operators (semantic date ranges like TODAY, LASTWEEK) in the filter bar',
  ),
  fiori(
    K,
    'onListNavigationExtension routing.onBeforeNavigation',
    'sapui5-198',
    'OData V4 (manifest route + routing.onBeforeNavigation extension)',
  ),
  fiori(
    P,
    'send the user to another details screen depending on which row was clicked',
    'sapui5-198',
    'This guide shows how to enable conditional internal navigation',
  ),
  fiori(
    K,
    'singleDraftForCreate Form Entry Object Page',
    'sapui5-224',
    'Configure a Form Entry Object Page to provide a page-only data-entry UI (no object page header or navigation bar).',
  ),
  fiori(
    K,
    'onBeforeAcceptRecommendations UI.Recommendations',
    'sapui5-250',
    'implement the onBeforeAcceptRecommendations hook to filter unaccepted recommendations',
  ),
  fiori(
    P,
    'suggest likely values to people while they fill in a form, and switch that off in the browser',
    'sapui5-250',
    'This document provides actionable steps and exact code examples for enabling, modeling, disabling',
  ),
  fiori(
    P,
    'clicking the arrow at the end of a row should open the record’s own page, and a deeper one from there',
    'sapui5-276',
    'Configure table chevron navigation so users can navigate from a List Report',
  ),
  fiori(
    K,
    'mass edit dialog custom save returning true',
    'sapui5-302',
    'For OData V4, returning true from the custom handler prevents the framework default save.',
  ),
  fiori(
    P,
    'show red, yellow or green state highlighting next to values',
    'sapui5-328',
    'Define and render status colors, icons, and importance for fields in LineItem, Identification and FieldGroup using a separate criticality property.',
  ),
  fiori(
    K,
    'sap.fe.macros TreeTable building block',
    'sapui5-354',
    'Use the sap.fe.macros TreeTable building block to render tree-structured tabular data',
  ),
  fiori(
    P,
    'display nested parent and child rows that can be expanded',
    'sapui5-354',
    'Use the sap.fe.macros TreeTable building block to render tree-structured tabular data',
  ),
  fiori(
    K,
    'vertical bullet chart axis1 axis2',
    'sapui5-380',
    'Configure dimension(s) with the axis category and measures with roles axis1 (actual) and axis2 (target).',
  ),
  fiori(
    P,
    'compare what was achieved against a goal value in a card graphic',
    'sapui5-380',
    'typically to compare actual values (columns) to a target (line)',
  ),
  fiori(
    P,
    'does the wizard write the screen layout metadata for me automatically',
    'btp-fiori-tools-13',
    'Example of generated OData XML annotations: a UI.LineItem for the list report',
  ),
  fiori(
    K,
    'MTA Node.js package global install',
    'btp-fiori-tools-91',
    'Install the MTA Node.js package globally (version 1.0+ required)',
  ),
  fiori(
    P,
    'my computer has no administrator rights, how do I get the editor onto it',
    'btp-fiori-tools-91',
    'If you cannot use the installer (no admin rights), download the standalone binary ZIP',
  ),
  fiori(
    P,
    'pull the newest backend changes into my offline copy of the service definition',
    'btp-fiori-tools-117',
    'Use "Refresh" to update only the local files.',
  ),
  fiori(
    K,
    'Adaptation Project Generator command palette on-premise',
    'btp-fiori-tools-143',
    'run the Adaptation Project Generator command provided by Fiori Tools',
  ),
  fiori(K, 'mta.yaml db-deployer gen/db', 'fiori-samples-11', 'change its path from gen/db to db'),
  fiori(
    P,
    'move my service’s storage from the file-based engine to the managed in-memory database in the cloud',
    'fiori-samples-11',
    'Switch CAP project database from SQLite to SAP HANA (HANA Cloud)',
  ),
  fiori(
    K,
    'xml-js external library UI5',
    'fiori-samples-37',
    'Add xml-js External Library to SAP Fiori UI5 Application',
  ),
  fiori(
    P,
    'let people choose from a short closed set of options instead of free typing',
    'fiori_development_portal-23',
    'Use Common.ValueListWithFixedValues to render as a dropdown select control.',
  ),
  fiori(
    K,
    'DialogMessageActions draft data loss popup',
    'sap_fe_test_api-4',
    'Selects the specified entry in the draft data loss popup.',
  ),
  fiori(K, 'onBeforeRebindChartExtension', 'sapui5-55', 'Implement the onBeforeRebindChartExtension method'),
  fiori(
    K,
    'com.sap.vocabularies.UI.v1.SelectionFields list report',
    'sapui5-81',
    'Add com.sap.vocabularies.UI.v1.SelectionFields annotation to expose properties in the List Report filter bar.',
  ),
  fiori(
    P,
    'put the main button into the bottom bar of the record page while editing',
    'sapui5-133',
    'The determining action is declared with determining: true so it will be rendered in the footer in edit mode.',
  ),
  fiori(
    K,
    'Editing Status filter draft',
    'sapui5-159',
    'include a static "Editing Status" filter that is added to the filter bar by default',
  ),
  fiori(
    P,
    'let users attach documents to rows of a grid',
    'sapui5-185',
    'For CAP projects, use the Attachments plug-in to add stream support to an entity.',
  ),
  fiori(
    K,
    'SmartFormExtension CustomFormElement.fragment.xml',
    'sapui5-211',
    'registering a SmartFormExtension in the manifest',
  ),
  fiori(
    K,
    'semanticKey @ObjectModel',
    'sapui5-237',
    'declare the semanticKey in the @ObjectModel annotation',
  ),
  fiori(
    P,
    'change the wording people see when a diagram has nothing to display',
    'sapui5-263',
    'The keys listed are the supported keys for SmartChart messages in OData V2 apps.',
  ),
  fiori(
    K,
    '#DATAPOINT_REFERENCE header facet',
    'sapui5-289',
    'add a UI.Facet entry of type #DATAPOINT_REFERENCE',
  ),
  fiori(
    K,
    'Org.OData.Measures.V1.Unit ISOCurrency',
    'sapui5-315',
    'Use Term="Org.OData.Measures.V1.Unit" with Path pointing to the unit property',
  ),
  fiori(
    P,
    'show kilograms or euros next to amounts',
    'sapui5-315',
    'Setting Units of Measure for Numeric Properties',
  ),
  fiori(
    K,
    'macros:FormElement macros:Form metaPath',
    'sapui5-341',
    'Place macros:FormElement elements as children of the macros:Form',
  ),
  fiori(
    K,
    'sap.m.Avatar initials',
    'sapui5-367',
    'Use the sap.m.Avatar control when you need full control in a view.',
  ),
  fiori(
    P,
    'show a person’s photo or their initials in a round badge',
    'sapui5-367',
    'Using Images, Initials, and Icons in SAP Fiori elements',
  ),
]
