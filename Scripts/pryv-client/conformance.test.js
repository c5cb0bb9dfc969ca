// Pryv's official JavaScript library (lib-js, `pryv` 3.x, unchanged) as a client of a running
// Whereabouts server: every public call of the library that a server method backs, modelled on
// the library's own tests (test/Connection.test.js, Streams.test.js, Accesses.test.js,
// Service.test.js, Connection.edge-cases.test.js). A test that ports one of them carries its id
// ("[CSNB] …"); the others say what they add. node:test and node:assert only: nothing to install.
//
// Run by Scripts/pryv-client-test.sh, which starts the server and sets:
//   PRYV_SERVICE_INFO_URL   http://127.0.0.1:PORT/service/info
//   PRYV_USERNAME           the user `whereabouts users add` created
//   PRYV_TOKEN              that user's personal token
//   PRYV_LIB_MODULE         the library's folder name, found through NODE_PATH (default pryv-lib-js)
//   PRYV_API_ENDPOINT       optional: the API endpoint to use instead of the one service info
//                           gives (http://TOKEN@HOST:PORT/USER/), to look at the rest of the API
//                           on a server that has no /service/info yet
'use strict';

const { describe, it, before, after, afterEach } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const pryv = require(process.env.PRYV_LIB_MODULE || 'pryv-lib-js');

const SERVICE_INFO_URL = required('PRYV_SERVICE_INFO_URL');
const USERNAME = required('PRYV_USERNAME');
const TOKEN = required('PRYV_TOKEN');
const ORIGIN = new URL(SERVICE_INFO_URL).origin; // http://127.0.0.1:PORT
const T = { timeout: 60_000 }; // per test: a server that stops answering fails the test, not the run

function required (name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (Scripts/pryv-client-test.sh sets it)`);
  return value;
}

// An event id as the library's tests make them ('c' + cuid2): 'c' and 24 of [a-z0-9].
function cuid () {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let id = 'c';
  for (const byte of crypto.randomBytes(24)) id += alphabet[byte % 36];
  return id;
}
const suffix = () => cuid().slice(1, 9);

// A server answer, short enough for an assertion message.
function show (value) {
  const text = JSON.stringify(value);
  return text && text.length > 600 ? text.slice(0, 600) + '…' : text;
}

// `count` events.get calls for api(), each with `params` and the rest of `call` (a handleResult).
function gets (count, { params = {}, ...call } = {}) {
  return Array.from({ length: count }, () => ({ method: 'events.get', params, ...call }));
}

// result[key] of one batch result, or a failure that shows what the server answered.
function field (result, key, what) {
  assert.ok(result != null && result[key] != null, `${what}: expected "${key}", the server answered ${show(result)}`);
  return result[key];
}

function errorId (result, what) {
  return field(field(result, 'error', what), 'id', what);
}

let service; // pryv.Service on PRYV_SERVICE_INFO_URL
let apiEndpoint; // http://TOKEN@127.0.0.1:PORT/USER/
let conn; // the personal token's Connection, as the library's tests make it

// The API endpoint of another token on the same user (the library's CAIX builds it the same way).
const endpointWithToken = (token) => pryv.utils.buildAPIEndpoint({ endpoint: conn.endpoint, token });

// GET {endpoint}events/ID/FILEID[/FILENAME] with plain fetch: Authorization only when given.
async function download (eventId, fileId, { authorization, readToken, fileName } = {}) {
  let url = conn.endpoint + 'events/' + encodeURIComponent(eventId) + '/' + encodeURIComponent(fileId);
  if (fileName) url += '/' + encodeURIComponent(fileName);
  if (readToken) url += '?readToken=' + encodeURIComponent(readToken);
  const response = await fetch(url, { headers: authorization ? { Authorization: authorization } : {} });
  return { status: response.status, type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
}

// The attachment an event-with-file call answered: one file, of this name, type and size.
function checkAttachment (res, { fileName, type, size }) {
  const event = field(res, 'event', 'create with a file');
  assert.ok(Array.isArray(event.attachments), `no attachments in ${show(res)}`);
  assert.equal(event.attachments.length, 1);
  const attachment = event.attachments[0];
  assert.equal(attachment.fileName, fileName);
  assert.equal(attachment.type, type);
  assert.equal(attachment.size, size);
  assert.equal(typeof attachment.id, 'string');
  return { event, attachment };
}

async function downloadsSameBytes (event, attachment, bytes) {
  const got = await download(event.id, attachment.id, { authorization: TOKEN });
  assert.equal(got.status, 200, `download answered ${got.status}: ${got.bytes.toString().slice(0, 300)}`);
  assert.ok(got.type && got.type.startsWith(attachment.type), `Content-Type ${got.type}, attachment type ${attachment.type}`);
  assert.ok(got.bytes.equals(bytes), `downloaded ${got.bytes.length} bytes, not the ${bytes.length} sent`);
}

describe(`Pryv lib-js ${pryv.version} against ${SERVICE_INFO_URL} (user ${USERNAME})`, () => {
  before(async () => {
    service = new pryv.Service(SERVICE_INFO_URL);
    apiEndpoint = process.env.PRYV_API_ENDPOINT;
    if (!apiEndpoint) {
      try {
        apiEndpoint = await service.apiEndpointFor(USERNAME, TOKEN);
      } catch (e) {
        // The [SERX] tests fail on it; the others still run, each failing for its own reason.
        apiEndpoint = `http://${TOKEN}@${new URL(SERVICE_INFO_URL).host}/${USERNAME}/`;
        console.log(`# no API endpoint from service info (${e.message}): the tests use ${ORIGIN}/${USERNAME}/`);
      }
    }
    conn = new pryv.Connection(apiEndpoint);
    // testData.prepare() of the library's tests: the streams its tests write to and query.
    try {
      const res = await conn.api([
        { method: 'streams.create', params: { id: 'data', name: 'Data' } },
        { method: 'streams.create', params: { id: 'monitor-test', name: 'Monitor test' } }
      ]);
      for (const result of res) {
        if (result.error && result.error.id !== 'item-already-exists') console.log('# streams.create: ' + show(result));
      }
    } catch (e) {
      console.log('# creating the streams data and monitor-test failed: ' + e.message);
    }
  });

  // ---------------------------------------------------------------------------------------------
  describe('[SERX] Service: /service/info, and the API endpoint the library builds from it', () => {
    it('[SERA] info() has name, api, access and register (each ending in /) and Pryv\'s other fields', T, async () => {
      const info = await new pryv.Service(SERVICE_INFO_URL).info();
      for (const key of ['access', 'api', 'register']) {
        assert.equal(typeof info[key], 'string', key);
        assert.ok(info[key].endsWith('/'), `${key} ${info[key]}`);
      }
      for (const key of ['name', 'home', 'support', 'terms', 'eventTypes', 'serial', 'version']) {
        assert.ok(info[key] != null, `service info without "${key}": ${show(info)}`);
      }
      assert.ok(info.meta && info.meta.serverTime, `no meta.serverTime in ${show(info)}`);
    });

    it('[SERB] info() twice (the second from the cache)', T, async () => {
      const pryvService = new pryv.Service(SERVICE_INFO_URL);
      const first = await pryvService.info();
      assert.ok(first.access);
      const second = await pryvService.info();
      assert.equal(second, first);
      const forced = await pryvService.info(true);
      assert.equal(forced.api, first.api);
    });

    it('api is DNS-less, http://HOST:PORT/{username}/; no HF series (features.noHF), so [CHFX] is skipped', T, async () => {
      const info = await service.info();
      assert.equal(info.api, `${ORIGIN}/{username}/`);
      assert.equal(await service.isDnsLess(), true);
      assert.equal(await service.supportsHF(), false);
    });

    it('apiEndpointFor(username, token) is http://TOKEN@HOST:PORT/USER/', T, async () => {
      const host = new URL(SERVICE_INFO_URL).host;
      assert.equal(await service.apiEndpointFor(USERNAME, TOKEN), `http://${TOKEN}@${host}/${USERNAME}/`);
      assert.equal(await service.apiEndpointFor(USERNAME), `http://${host}/${USERNAME}/`);
    });

    it('GET /{username}/service/info (no token) answers the same service info', T, async () => {
      const scoped = await new pryv.Service(`${ORIGIN}/${USERNAME}/service/info`).info();
      const info = await service.info();
      assert.equal(scoped.api, info.api);
      assert.equal(scoped.name, info.name);
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('[CONX] Connection', () => {
    // The library's `before`: three events created with the client's ids, one trashed, one
    // trashed then deleted, in one batch.
    let setup;
    let setupError;
    const ids = [cuid(), cuid(), cuid()];
    before(async () => {
      try {
        setup = await conn.api([
          { method: 'events.create', params: { id: ids[0], streamIds: ['data'], type: 'note/txt', content: 'Hello test ' + new Date() } },
          { method: 'events.create', params: { id: ids[1], streamIds: ['data'], type: 'note/txt', content: 'Hello test ' + new Date() } },
          { method: 'events.create', params: { id: ids[2], streamIds: ['data'], type: 'note/txt', content: 'To be Deleted ' + new Date() } },
          { method: 'events.delete', params: { id: ids[1] } },
          { method: 'events.delete', params: { id: ids[2] } },
          { method: 'events.delete', params: { id: ids[2] } }
        ]);
      } catch (e) {
        setupError = e;
      }
    });

    it('[CONX] before: events.create with the client\'s ids, events.delete trashes, a second deletes', T, () => {
      if (setupError) throw setupError;
      for (let i = 0; i < 3; i++) assert.equal(field(setup[i], 'event', 'events.create').id, ids[i]);
      assert.equal(field(setup[3], 'event', 'first events.delete').trashed, true);
      assert.equal(field(setup[4], 'event', 'first events.delete').trashed, true);
      assert.equal(field(setup[5], 'eventDeletion', 'second events.delete').id, ids[2]);
    });

    it('[CSRA] conn.service is a pryv.Service; [CSCA] built from {endpoint}service/info, which answers', T, async () => {
      const fresh = new pryv.Connection(apiEndpoint);
      assert.ok(fresh.service instanceof pryv.Service);
      assert.equal(fresh.service, fresh.service);
      const info = await fresh.service.info();
      assert.equal(info.api, (await service.info()).api);
    });

    it('[CSCB] new Connection(endpoint, service) keeps that service', T, async () => {
      await service.info();
      const conn2 = new pryv.Connection(apiEndpoint, service);
      assert.equal(conn2.service, service);
      assert.equal(await conn2.username(), USERNAME);
    });

    it('[CUSA] username()', T, async () => {
      assert.equal(await conn.username(), USERNAME);
    });

    it('[CAOA] apiOne("events.get")', T, async () => {
      const res = await conn.apiOne('events.get');
      assert.ok(Array.isArray(res.events), show(res));
    });

    it('[CAOB] apiOne("events.get", {}, "events")', T, async () => {
      const res = await conn.apiOne('events.get', {}, 'events');
      assert.ok(Array.isArray(res));
    });

    describe('[CAPX] api()', () => {
      afterEach(() => { conn.options.chunkSize = 1000; });

      it('[CAPA] api() events.get', T, async () => {
        const res = await conn.api([{ method: 'events.get', params: {} }]);
        assert.equal(res.length, 1);
        field(res[0], 'events', 'events.get');
      });

      it('[CAPB] api() split in chunks (chunkSize 2: a batch of 2, then of 1)', T, async () => {
        conn.options.chunkSize = 2;
        const res = await conn.api(gets(3));
        assert.equal(res.length, 3);
        for (const result of res) field(result, 'events', 'events.get');
      });

      it('[CAPC] api() calls handleResult for each result', T, async () => {
        conn.options.chunkSize = 2;
        let received = 0;
        const handleResult = (res, apiCall) => {
          assert.ok(res.events, show(res));
          assert.equal(apiCall.method, 'events.get');
          received++;
        };
        const res = await conn.api(gets(3, { handleResult }));
        assert.equal(res.length, 3);
        assert.equal(received, 3);
      });

      it('[CAPD] api() awaits an async handleResult', T, async () => {
        conn.options.chunkSize = 2;
        let received = 0;
        const handleResult = async (res) => {
          assert.ok(res.events, show(res));
          await new Promise((resolve) => setTimeout(resolve, 100));
          received++;
        };
        const res = await conn.api(gets(3, { handleResult }));
        assert.equal(res.length, 3);
        assert.equal(received, 3);
      });

      it('[CAPE] api() in chunks reports progress 67 then 100', T, async () => {
        conn.options.chunkSize = 2;
        const percents = [];
        const res = await conn.api(gets(3), (percent) => percents.push(percent));
        assert.equal(res.length, 3);
        assert.deepEqual(percents, [67, 100]);
      });

      it('api() of 4 calls in chunks of 2 sends 2, 2 and an empty batch [] (progress 50, 100, 100)', T, async () => {
        conn.options.chunkSize = 2;
        const percents = [];
        const res = await conn.api(gets(4, { params: { limit: 1 } }), (percent) => percents.push(percent));
        assert.equal(res.length, 4);
        assert.deepEqual(percents, [50, 100, 100]);
      });

      it('[CAPF] api() as a promise with then', T, () => conn.api([{ method: 'events.get', params: {} }]).then((res) => {
        assert.equal(res.length, 1);
      }));
    });

    it('[CGTA] get("events", {limit: 1})', T, async () => {
      const res = await conn.get('events', { limit: 1 });
      assert.equal(field(res, 'events', 'GET /events').length, 1);
    });

    it('[CGTB] get("events") with fromTime, toTime, limit, types and two streams', T, async () => {
      const res = await conn.get('events', { fromTime: 0, toTime: Date.now() / 1000, limit: 10000, types: ['note/txt'], streams: ['data', 'monitor-test'] });
      const events = field(res, 'events', 'GET /events');
      assert.ok(events.length > 0);
      for (const event of events) assert.equal(event.type, 'note/txt');
    });

    it('[CTMA] deltaTime within ±2 s', T, async () => {
      await conn.get('events', { limit: 1 });
      assert.ok(conn.deltaTime >= -2 && conn.deltaTime <= 2, `deltaTime ${conn.deltaTime}`);
    });

    it('[CEPA] apiEndpoint is scheme://TOKEN@ + service info\'s api with the username', T, async () => {
      const [protocol, hostPath] = (await service.info()).api.split('://');
      assert.equal(conn.apiEndpoint, protocol + '://' + conn.token + '@' + hostPath.replace('{username}', USERNAME));
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('events: create (POST /events), getOne (GET /events/{id}), update', () => {
    let created;

    it('post("events", event) creates it: Pryv\'s event fields', T, async () => {
      const res = await conn.post('events', { streamIds: ['data'], type: 'note/txt', content: 'posted as JSON' });
      created = field(res, 'event', 'POST /events');
      assert.match(created.id, /^[a-z0-9-]+$/);
      assert.deepEqual(created.streamIds, ['data']);
      assert.equal(created.type, 'note/txt');
      assert.equal(created.content, 'posted as JSON');
      for (const key of ['time', 'created', 'modified']) assert.equal(typeof created[key], 'number', key);
      for (const key of ['createdBy', 'modifiedBy']) assert.equal(typeof created[key], 'string', key);
      assert.equal(created.trashed, undefined, 'trashed only on trashed events');
    });

    it('get("events/ID") answers the event', T, async () => {
      assert.ok(created, 'needs the POST /events test');
      const res = await conn.get('events/' + created.id);
      const event = field(res, 'event', 'GET /events/{id}');
      assert.equal(event.id, created.id);
      assert.equal(event.content, 'posted as JSON');
      assert.deepEqual(event.streamIds, ['data']);
    });

    it('events.getOne in a batch answers the event', T, async () => {
      assert.ok(created, 'needs the POST /events test');
      const event = await conn.apiOne('events.getOne', { id: created.id }, 'event');
      assert.equal(event.id, created.id);
      assert.equal(event.content, 'posted as JSON');
    });

    it('events.update changes the content', T, async () => {
      assert.ok(created, 'needs the POST /events test');
      const event = await conn.apiOne('events.update', { id: created.id, update: { content: 'updated' } }, 'event');
      assert.equal(event.id, created.id);
      assert.equal(event.content, 'updated');
      assert.ok(event.modified >= created.modified);
      const again = field(await conn.get('events/' + created.id), 'event', 'GET /events/{id}');
      assert.equal(again.content, 'updated');
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('[CSTX] Streamed event get: getEventsStreamed', () => {
    const now = Date.now() / 1000 + 1000;

    it('[CSNA] streaming: one callback per event, as many as eventsCount', T, async () => {
      let count = 0;
      const res = await conn.getEventsStreamed({ fromTime: 0, toTime: now, limit: 10000 }, () => { count++; });
      assert.ok(count > 0);
      assert.equal(count, res.eventsCount);
    });

    it('[CSNZ] streaming with types and streams', T, async () => {
      let count = 0;
      const res = await conn.getEventsStreamed(
        { fromTime: 0, toTime: Date.now() / 1000, limit: 10000, types: ['note/txt'], streams: ['data', 'monitor-test'] },
        (event) => { assert.equal(event.type, 'note/txt'); count++; });
      assert.ok(count > 0);
      assert.equal(count, res.eventsCount);
    });

    it('[CSNY] streaming with unknown streams throws (an error answer)', T, async () => {
      await assert.rejects(conn.getEventsStreamed(
        { fromTime: 0, toTime: Date.now() / 1000, limit: 10000, types: ['note/txt'], streams: ['bogus', 'bogus2'] },
        () => {}));
    });

    it('[CSNB] streaming includeDeletions, modifiedSince=0, state=all: plain, trashed and deleted events', T, async () => {
      const trashId = cuid();
      const deleteId = cuid();
      const setup = await conn.api([
        { method: 'events.create', params: { id: trashId, streamIds: ['data'], type: 'note/txt', content: 'to trash' } },
        { method: 'events.create', params: { id: deleteId, streamIds: ['data'], type: 'note/txt', content: 'to delete' } },
        { method: 'events.delete', params: { id: trashId } },
        { method: 'events.delete', params: { id: deleteId } },
        { method: 'events.delete', params: { id: deleteId } }
      ]);
      field(setup[0], 'event', 'events.create');
      field(setup[4], 'eventDeletion', 'second events.delete');
      let plain = 0;
      let trashed = 0;
      let deleted = 0;
      const seen = {};
      const res = await conn.getEventsStreamed(
        { fromTime: 0, toTime: now, limit: 10000, includeDeletions: true, modifiedSince: 0, state: 'all' },
        (event) => {
          if (event.deleted) deleted++;
          else if (event.trashed) trashed++;
          else plain++;
          if (event.id === trashId || event.id === deleteId) seen[event.id] = event;
        });
      assert.equal(trashed + plain, res.eventsCount);
      assert.equal(deleted, res.eventDeletionsCount);
      assert.ok(plain > 0, 'no plain event');
      assert.ok(trashed > 0, 'no trashed event');
      assert.ok(deleted > 0, 'no deletion');
      assert.equal(seen[trashId] && seen[trashId].trashed, true, `the trashed event: ${show(seen[trashId])}`);
      assert.ok(seen[deleteId] && typeof seen[deleteId].deleted === 'number', `the deleted event's tombstone: ${show(seen[deleteId])}`);
      assert.equal(seen[deleteId].content, undefined, 'a tombstone keeps only id and deleted');
    });

    it('[CSNC] no events: eventsCount 0', T, async () => {
      const res = await conn.getEventsStreamed({ fromTime: 0, toTime: now, types: ['type/unexistent'] }, () => {});
      assert.equal(res.eventsCount, 0);
    });

    it('text beyond ASCII streams back intact, however the answer is cut into chunks', T, async () => {
      // Two megabytes of characters of 2 to 4 bytes: the network cuts the answer inside some
      // of them unless the server writes them as \u escapes (the library decodes each chunk alone).
      const contents = [];
      for (let i = 0; i < 8; i++) {
        const content = `${i} ` + ['é', '東', '😀'][i % 3].repeat(80_000);
        const created = await conn.apiOne('events.create', { streamIds: ['data'], type: 'note/txt', content, time: now - 3 }, 'event');
        contents.push([created.id, content]);
      }
      const seen = new Map();
      await conn.getEventsStreamed({ fromTime: now - 4, toTime: now - 2, types: ['note/txt'] }, (event) => seen.set(event.id, event.content));
      for (const [id, content] of contents) assert.ok(seen.get(id) === content, `event ${id} came back altered`);
    });

    it('[CSND] no events, includeDeletions: eventsCount 0 and an eventDeletionsCount', T, async () => {
      const res = await conn.getEventsStreamed(
        { fromTime: 0, toTime: now, types: ['type/unexistent'], includeDeletions: true, modifiedSince: 0 }, () => {});
      assert.equal(res.eventsCount, 0);
      assert.equal(typeof res.eventDeletionsCount, 'number', show(res));
      assert.ok(res.eventDeletionsCount >= 0);
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('[CATX] Attachments: multipart create, download, readToken', () => {
    let folder;
    let png; // PNG's signature, every byte value and a line that looks like a multipart boundary
    let fromFile; // { event, attachment } of CATA

    before(() => {
      folder = fs.mkdtempSync(path.join(os.tmpdir(), 'pryv-client-'));
      png = Buffer.concat([
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
        Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
        Buffer.from('\r\n------formdata-undici-0123456789\r\nContent-Disposition: form-data\r\n\r\n'),
        crypto.randomBytes(3000)
      ]);
      fs.writeFileSync(path.join(folder, 'Y.png'), png);
    });
    after(() => { if (folder) fs.rmSync(folder, { recursive: true, force: true }); });

    it('[CATA] createEventWithFile: the attachment, downloaded byte for byte', T, async () => {
      const res = await conn.createEventWithFile({ type: 'picture/attached', streamIds: ['data'] }, path.join(folder, 'Y.png'));
      fromFile = checkAttachment(res, { fileName: 'Y.png', type: 'image/png', size: png.length });
      await downloadsSameBytes(fromFile.event, fromFile.attachment, png);
    });

    it('[CATB] createEventWithFileFromBuffer (file part before the event part): downloaded byte for byte', T, async () => {
      const res = await conn.createEventWithFileFromBuffer({ type: 'picture/attached', streamIds: ['data'] }, png, 'Y.png');
      const { event, attachment } = checkAttachment(res, { fileName: 'Y.png', type: 'image/png', size: png.length });
      await downloadsSameBytes(event, attachment, png);
    });

    it('[CATD] createEventWithFormData (a Blob without file name is "blob"): downloaded byte for byte', T, async () => {
      const text = Buffer.from('Hello, Whereabouts \u00e9\u00e8\n');
      const formData = new FormData();
      formData.append('webmasterfile', new Blob([text], { type: 'text/plain' }));
      const res = await conn.createEventWithFormData({ type: 'file/attached', streamIds: ['data'] }, formData);
      const { event, attachment } = checkAttachment(res, { fileName: 'blob', type: 'text/plain', size: text.length });
      await downloadsSameBytes(event, attachment, text);
    });

    it('each attachment carries a readToken: in the create answer and in GET /events/{id}', T, async () => {
      assert.ok(fromFile, 'needs CATA');
      assert.equal(typeof fromFile.attachment.readToken, 'string', `no readToken in ${show(fromFile.attachment)}`);
      const event = field(await conn.get('events/' + fromFile.event.id), 'event', 'GET /events/{id}');
      assert.equal(event.attachments.length, 1);
      assert.equal(event.attachments[0].id, fromFile.attachment.id);
      assert.equal(typeof event.attachments[0].readToken, 'string');
    });

    it('the readToken link downloads with plain fetch, no Authorization; a wrong readToken or none is refused', T, async () => {
      assert.ok(fromFile, 'needs CATA');
      const { event, attachment } = fromFile;
      assert.equal(typeof attachment.readToken, 'string', `no readToken in ${show(attachment)}`);
      const got = await download(event.id, attachment.id, { readToken: attachment.readToken });
      assert.equal(got.status, 200, `readToken link answered ${got.status}: ${got.bytes.toString().slice(0, 300)}`);
      assert.ok(got.bytes.equals(png), 'readToken download: not the bytes sent');
      const named = await download(event.id, attachment.id, { readToken: attachment.readToken, fileName: 'Y.png' });
      assert.equal(named.status, 200, `…/{fileId}/Y.png?readToken answered ${named.status}`);
      assert.ok(named.bytes.equals(png));
      const forged = attachment.readToken.slice(0, -4) + (attachment.readToken.endsWith('AAAA') ? 'BBBB' : 'AAAA');
      const refused = await download(event.id, attachment.id, { readToken: forged });
      assert.ok(refused.status >= 400 && refused.status < 500, `a forged readToken answered ${refused.status}`);
      const anonymous = await download(event.id, attachment.id);
      assert.ok(anonymous.status === 401 || anonymous.status === 403, `no token at all answered ${anonymous.status}`);
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('more than 10,000 events: a time range has no default limit', () => {
    const N = 12000;
    const stream = 'bulk-' + suffix(); // its own stream, so that a second run on the same data counts right
    const created = new Set();
    let fromTime;
    let toTime;
    let setupError; // thrown by each test, so that each says why

    before(async () => {
      try {
        // In the past (two days ago), so no other test's event is in the range.
        fromTime = Math.floor(Date.now() / 1000) - 2 * 86400;
        toTime = fromTime + N;
        await conn.apiOne('streams.create', { id: stream, name: stream }, 'stream');
        const calls = [];
        for (let i = 0; i < N; i++) {
          calls.push({ method: 'events.create', params: { streamIds: [stream], type: 'note/txt', content: 'bulk ' + i, time: fromTime + i + 0.5 } });
        }
        // 12 batches of 1000, then the library's empty batch [].
        const res = await conn.api(calls);
        const failed = res.filter((result) => !result || !result.event);
        assert.equal(failed.length, 0, `${failed.length} events.create failed, e.g. ${show(failed[0])}`);
        for (const result of res) created.add(result.event.id);
        assert.equal(created.size, N);
      } catch (e) {
        setupError = e;
      }
    }, { timeout: 300_000 });

    it('get("events", {fromTime, toTime}) answers all 12,000', T, async () => {
      if (setupError) throw setupError;
      const res = await conn.get('events', { fromTime, toTime, streams: [stream] });
      const events = field(res, 'events', 'GET /events');
      assert.equal(events.length, N);
      assert.equal(new Set(events.map((event) => event.id)).size, N);
      for (const event of events) assert.ok(created.has(event.id), `unexpected event ${show(event)}`);
    });

    it('getEventsStreamed over the same range calls back 12,000 times, once per event', T, async () => {
      if (setupError) throw setupError;
      const seen = new Set();
      let calls = 0;
      const res = await conn.getEventsStreamed({ fromTime, toTime, streams: [stream] }, (event) => { calls++; seen.add(event.id); });
      assert.equal(calls, N);
      assert.equal(res.eventsCount, N);
      assert.equal(seen.size, N);
      for (const id of created) assert.ok(seen.has(id), `event ${id} not streamed`);
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('[STRX] Streams', () => {
    const s = suffix();
    const testStreamId = 'str-' + s;
    const childStreamId = 'str-child-' + s;

    after(async () => {
      await conn.api([
        { method: 'streams.delete', params: { id: testStreamId } },
        { method: 'streams.delete', params: { id: testStreamId } }
      ]).catch(() => {});
    });

    it('[SCRA] create a root stream', T, async () => {
      const res = await conn.api([{ method: 'streams.create', params: { id: testStreamId, name: 'Test Stream ' + s } }]);
      const stream = field(res[0], 'stream', 'streams.create');
      assert.equal(stream.id, testStreamId);
      assert.equal(stream.name, 'Test Stream ' + s);
    });

    it('[SCRB] create a child stream', T, async () => {
      const res = await conn.api([{ method: 'streams.create', params: { id: childStreamId, name: 'Child Stream ' + s, parentId: testStreamId } }]);
      assert.equal(field(res[0], 'stream', 'streams.create').parentId, testStreamId);
    });

    it('[SCRC] a duplicate stream id is item-already-exists', T, async () => {
      const res = await conn.api([{ method: 'streams.create', params: { id: testStreamId, name: 'Duplicate ' + s } }]);
      assert.equal(errorId(res[0], 'duplicate streams.create'), 'item-already-exists');
    });

    it('[SGTA] streams.get lists streams', T, async () => {
      const res = await conn.api([{ method: 'streams.get', params: {} }]);
      const streams = field(res[0], 'streams', 'streams.get');
      assert.ok(Array.isArray(streams) && streams.length > 0);
    });

    it('[SGTB] the tree has the child under its parent\'s children', T, async () => {
      const res = await conn.api([{ method: 'streams.get', params: {} }]);
      const parent = findStream(field(res[0], 'streams', 'streams.get'), testStreamId);
      assert.ok(parent, 'parent not found');
      assert.ok(Array.isArray(parent.children), show(parent));
      assert.ok(parent.children.find((child) => child.id === childStreamId), show(parent));
    });

    it('[SUPA] streams.update renames', T, async () => {
      const res = await conn.api([{ method: 'streams.update', params: { id: childStreamId, update: { name: 'Renamed ' + s } } }]);
      assert.equal(field(res[0], 'stream', 'streams.update').name, 'Renamed ' + s);
    });

    it('[SDLA] the first streams.delete trashes', T, async () => {
      const res = await conn.api([{ method: 'streams.delete', params: { id: childStreamId } }]);
      assert.equal(field(res[0], 'stream', 'first streams.delete').trashed, true);
    });

    it('[SDLB] the second streams.delete deletes: streamDeletion', T, async () => {
      const res = await conn.api([{ method: 'streams.delete', params: { id: childStreamId } }]);
      assert.equal(field(res[0], 'streamDeletion', 'second streams.delete').id, childStreamId);
      const tree = await conn.apiOne('streams.get', {}, 'streams');
      assert.equal(findStream(tree, childStreamId), null);
    });

    it('deleting a trashed stream that holds events needs mergeEventsWithParent; true moves them to the parent', T, async () => {
      const p = 'merge-' + suffix();
      const c = p + '-child';
      const eventId = cuid();
      const res = await conn.api([
        { method: 'streams.create', params: { id: p, name: p } },
        { method: 'streams.create', params: { id: c, name: c, parentId: p } },
        { method: 'events.create', params: { id: eventId, streamIds: [c], type: 'note/txt', content: 'in the child' } },
        { method: 'streams.delete', params: { id: c } },
        { method: 'streams.delete', params: { id: c } },
        { method: 'streams.delete', params: { id: c, mergeEventsWithParent: true } }
      ]);
      try {
        field(res[2], 'event', 'events.create');
        assert.equal(field(res[3], 'stream', 'first streams.delete').trashed, true);
        assert.equal(errorId(res[4], 'second streams.delete without mergeEventsWithParent'), 'invalid-parameters-format');
        assert.equal(field(res[5], 'streamDeletion', 'streams.delete with mergeEventsWithParent').id, c);
        const event = await conn.apiOne('events.getOne', { id: eventId }, 'event');
        assert.deepEqual(event.streamIds, [p]);
      } finally {
        await conn.api([
          { method: 'streams.delete', params: { id: p } },
          { method: 'streams.delete', params: { id: p, mergeEventsWithParent: false } }
        ]).catch(() => {});
      }
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('access-info', () => {
    it('[CGEA] get("access-info") and [CGEB] get("access-info", null)', T, async () => {
      assert.ok(field(await conn.get('access-info'), 'user', 'access-info'));
      assert.ok(field(await conn.get('access-info', null), 'user', 'access-info'));
    });

    it('accessInfo() of the personal token has Pryv\'s fields', T, async () => {
      const info = await conn.accessInfo();
      assert.equal(info.error, undefined, show(info));
      assert.equal(info.token, TOKEN, `token: ${show(info)}`);
      assert.equal(info.type, 'personal', `type: ${show(info)}`);
      assert.deepEqual(info.user, { username: USERNAME });
      assert.equal(typeof info.id, 'string', `id: ${show(info)}`);
      assert.equal(typeof info.name, 'string', `name: ${show(info)}`);
      for (const key of ['created', 'modified']) assert.equal(typeof info[key], 'number', `${key}: ${show(info)}`);
      for (const key of ['createdBy', 'modifiedBy']) assert.equal(typeof info[key], 'string', `${key}: ${show(info)}`);
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('[ACSX] Accesses', () => {
    const testStreamId = 'acc-' + suffix();
    let createdAccessId = null;
    let createdAccessToken = null;

    before(async () => {
      // As the library's: a failure here shows in the tests that need the stream.
      await conn.api([{ method: 'streams.create', params: { id: testStreamId, name: 'Access Test Stream ' + testStreamId } }]).catch(() => {});
    });
    after(async () => {
      await conn.api([
        { method: 'streams.delete', params: { id: testStreamId } },
        { method: 'streams.delete', params: { id: testStreamId } }
      ]).catch(() => {});
    });

    it('[ACRA] create a shared access', T, async () => {
      const res = await conn.api([{
        method: 'accesses.create',
        params: { name: 'test-shared-' + suffix(), type: 'shared', permissions: [{ streamId: testStreamId, level: 'read' }] }
      }]);
      const access = field(res[0], 'access', 'accesses.create');
      assert.equal(typeof access.token, 'string');
      assert.equal(access.type, 'shared');
      createdAccessId = access.id;
      createdAccessToken = access.token;
    });

    it('[ACRB] create an app access', T, async () => {
      const res = await conn.api([{
        method: 'accesses.create',
        params: { name: 'test-app-' + suffix(), type: 'app', permissions: [{ streamId: testStreamId, level: 'contribute' }] }
      }]);
      assert.equal(field(res[0], 'access', 'accesses.create').type, 'app');
    });

    it('create a manage access; without a type it is shared', T, async () => {
      const access = await conn.apiOne('accesses.create', {
        name: 'test-manage-' + suffix(), permissions: [{ streamId: testStreamId, level: 'manage' }]
      }, 'access');
      assert.equal(access.type, 'shared');
      assert.deepEqual(access.permissions, [{ streamId: testStreamId, level: 'manage' }]);
      if (access.apiEndpoint != null) assert.equal(access.apiEndpoint, endpointWithToken(access.token));
    });

    it('[ACRC] a bogus permission level is an error', T, async () => {
      const res = await conn.api([{
        method: 'accesses.create',
        params: { name: 'bad-access', type: 'shared', permissions: [{ streamId: testStreamId, level: 'bogus' }] }
      }]);
      const id = errorId(res[0], 'accesses.create with level bogus');
      assert.equal(id, 'invalid-parameters-format', `accesses.create with level bogus: ${show(res[0])}`);
    });

    it('[AGTA] accesses.get lists accesses', T, async () => {
      const res = await conn.api([{ method: 'accesses.get', params: {} }]);
      const accesses = field(res[0], 'accesses', 'accesses.get');
      assert.ok(Array.isArray(accesses) && accesses.length > 0);
    });

    it('[AGTB] the created access is listed, with its token', T, async () => {
      assert.ok(createdAccessId, 'needs ACRA');
      const res = await conn.api([{ method: 'accesses.get', params: {} }]);
      const found = field(res[0], 'accesses', 'accesses.get').find((a) => a.id === createdAccessId);
      assert.ok(found, 'not listed');
      assert.equal(found.token, createdAccessToken);
    });

    it('[ADLA] accesses.delete: accessDeletion', T, async () => {
      assert.ok(createdAccessId, 'needs ACRA');
      const res = await conn.api([{ method: 'accesses.delete', params: { id: createdAccessId } }]);
      assert.equal(field(res[0], 'accessDeletion', 'accesses.delete').id, createdAccessId);
    });

    it('[ADLB] the deleted access is no longer listed, and its token no longer works', T, async () => {
      assert.ok(createdAccessId, 'needs ACRA');
      const res = await conn.api([{ method: 'accesses.get', params: {} }]);
      assert.equal(field(res[0], 'accesses', 'accesses.get').find((a) => a.id === createdAccessId), undefined);
      await assert.rejects(new pryv.Connection(endpointWithToken(createdAccessToken)).username());
    });

    describe('[CAIX] Access Info of a created access', () => {
      let newAccess;
      let accessInfo;
      let setupError; // thrown by each test, so that each says why
      before(async () => {
        try {
          newAccess = await conn.apiOne('accesses.create', {
            name: 'test' + Math.round(Math.random() * 10000), permissions: [{ streamId: 'data', level: 'read' }]
          }, 'access');
          accessInfo = await new pryv.Connection(endpointWithToken(newAccess.token)).accessInfo();
        } catch (e) {
          setupError = e;
        }
      });
      after(async () => {
        if (newAccess) await conn.api([{ method: 'accesses.delete', params: { id: newAccess.id } }]).catch(() => {});
      });

      it('[CAIA] same name', T, () => {
        if (setupError) throw setupError;
        assert.ok(accessInfo && accessInfo.name, show(accessInfo));
        assert.equal(accessInfo.name, newAccess.name);
      });

      it('[CAIB] same token', T, () => {
        if (setupError) throw setupError;
        assert.ok(accessInfo && accessInfo.token, show(accessInfo));
        assert.equal(accessInfo.token, newAccess.token);
      });

      it('Pryv\'s fields: id, type, permissions, created(By), modified(By), user', T, () => {
        if (setupError) throw setupError;
        assert.equal(accessInfo.error, undefined, show(accessInfo));
        assert.equal(accessInfo.id, newAccess.id);
        assert.equal(accessInfo.type, 'shared');
        assert.deepEqual(accessInfo.permissions.filter((p) => p.streamId === 'data'), [{ streamId: 'data', level: 'read' }]);
        for (const key of ['created', 'modified']) assert.equal(typeof accessInfo[key], 'number', key);
        for (const key of ['createdBy', 'modifiedBy']) assert.equal(typeof accessInfo[key], 'string', key);
        assert.deepEqual(accessInfo.user, { username: USERNAME });
      });
    });

    describe('revoke()', () => {
      it('an app access revokes itself: accessDeletion, then its token is refused', T, async () => {
        const access = await conn.apiOne('accesses.create', {
          name: 'revoke-self-' + suffix(), type: 'app', permissions: [{ streamId: 'data', level: 'contribute' }]
        }, 'access');
        const appConn = new pryv.Connection(endpointWithToken(access.token));
        assert.equal(await appConn.username(), USERNAME);
        const res = await appConn.revoke();
        assert.equal(field(res, 'accessDeletion', 'revoke()').id, access.id);
        const revoked = await appConn.accessInfo();
        assert.ok(revoked.error, `access-info of a revoked token: ${show(revoked)}`);
        await assert.rejects(appConn.username());
      });

      it('revoke(true, personal connection) of a shared access', T, async () => {
        const access = await conn.apiOne('accesses.create', {
          name: 'revoke-by-personal-' + suffix(), permissions: [{ streamId: 'data', level: 'read' }]
        }, 'access');
        const sharedConn = new pryv.Connection(endpointWithToken(access.token));
        const res = await sharedConn.revoke(true, conn);
        assert.equal(field(res, 'accessDeletion', 'revoke()').id, access.id);
        const listed = await conn.apiOne('accesses.get', {}, 'accesses');
        assert.equal(listed.find((a) => a.id === access.id), undefined);
      });
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('[CECX] batch and errors', () => {
    it('batch events.create, events.delete, events.delete: event, trashed event, eventDeletion', T, async () => {
      const id = cuid();
      const res = await conn.api([
        { method: 'events.create', params: { id, streamIds: ['data'], type: 'note/txt', content: 'short-lived' } },
        { method: 'events.delete', params: { id } },
        { method: 'events.delete', params: { id } }
      ]);
      assert.equal(field(res[0], 'event', 'events.create').id, id);
      assert.equal(field(res[1], 'event', 'first events.delete').trashed, true);
      assert.deepEqual(field(res[2], 'eventDeletion', 'second events.delete'), { id });
    });

    it('[CERB] apiOne("invalid.method") throws, with error id invalid-method', T, async () => {
      await assert.rejects(conn.apiOne('invalid.method', {}), (e) => {
        assert.ok(e instanceof pryv.PryvError, String(e));
        assert.equal(e.innerObject && e.innerObject.id, 'invalid-method', show(e.innerObject));
        return true;
      });
    });

    it('an empty batch [] answers results []', T, async () => {
      const body = await conn.post('', []);
      assert.deepEqual(body.results, []);
      assert.deepEqual(await conn.api([]), []);
    });

    it('the API answers at the root too (http://TOKEN@HOST:PORT/), as at /{username}/', T, async () => {
      const rootConn = new pryv.Connection(`http://${TOKEN}@${new URL(SERVICE_INFO_URL).host}/`);
      assert.equal(await rootConn.username(), USERNAME);
      assert.ok(Array.isArray(await rootConn.apiOne('events.get', { limit: 1 }, 'events')));
    });

    it('another username in the path is refused, with the same token', T, async () => {
      const other = 'not-' + USERNAME;
      const otherConn = new pryv.Connection(`http://${TOKEN}@${new URL(SERVICE_INFO_URL).host}/${other}/`);
      await assert.rejects(otherConn.username());
      await assert.rejects(otherConn.apiOne('events.get', {}));
      const response = await fetch(`${ORIGIN}/${other}/events?limit=1`, { headers: { Authorization: TOKEN } });
      assert.ok(response.status === 403 || response.status === 404, `GET /${other}/events answered ${response.status}`);
    });
  });
});

function findStream (streams, id) {
  for (const s of streams) {
    if (s.id === id) return s;
    if (s.children) {
      const found = findStream(s.children, id);
      if (found) return found;
    }
  }
  return null;
}
