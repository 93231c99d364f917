// Drive `littlego gtp` as Sabaki does, through Sabaki's own GTP library: its start-up burst, a sync of each
// record's history by ControllerStateTracker (setup stones as plays, several of one colour in a row, and
// undo where the next history shares a start), an analysis read line by line, then aborted by the next
// command. Usage: node drive.js LITTLEGO_COMMAND... ; prints one JSON report on stdout.
const {Controller, ControllerStateTracker} = require('@sabaki/gtp')

const [command, ...args] = process.argv.slice(2)

// One analysis line as Sabaki reads it: "info" items, each key/value pairs then a principal variation (the
// trailing run of vertices after "pv"); Leela Zero's win rates are in ten-thousandths, KataGo's fractions.
function parseLine(line, kata) {
  return line
    .split(/\s*info\s+/)
    .slice(1)
    .map(item => {
      let [pairs, pv] = item.trim().split(/\s+pv\s+/)
      let words = pairs.split(/\s+/)
      let fields = {}
      for (let i = 0; i + 1 < words.length; i += 2) fields[words[i]] = words[i + 1]
      return {
        vertex: fields.move,
        visits: +fields.visits,
        winrate: kata ? +fields.winrate * 100 : +fields.winrate / 100,
        scoreLead: fields.scoreLead == null ? null : +fields.scoreLead,
        pv: (pv || '').trim().split(/\s+/).filter(x => x)
      }
    })
}

async function analyse(tracker, name, colour) {
  let lines = []
  let done = false // the answer ended (an error, or the engine gone) before any command ended it
  let answer = tracker.controller.sendCommand({name, args: [colour, '20']}, ({line}) => {
    if (line.startsWith('info ')) lines.push(parseLine(line, name === 'kata-analyze'))
  })
  answer.then(() => (done = true), () => (done = true))
  // until a line is exact (every win rate 0 or 100: an estimate stays within 1-99), at most 60 s
  let exact = () => lines.length > 0 && lines[lines.length - 1].every(item => item.winrate % 100 === 0)
  let waited = 0
  while (!exact() && waited < 60000 && !done) {
    await new Promise(resolve => setTimeout(resolve, 50))
    waited += 50
  }
  let abort = tracker.controller.sendCommand({name: 'name'}) // Sabaki stops an analysis with its next command
  let response = await answer
  let after = await abort
  return {lines, waited, error: response.error ? response.content : null, next: after.content}
}

async function main() {
  let controller = new Controller(command, args)
  let stderr = []
  controller.on('stderr', ({content}) => stderr.push(content))
  let exited = null
  controller.start()
  controller.process.on('exit', code => (exited = code))
  let tracker = new ControllerStateTracker(controller)
  let report = {startup: {}, records: []}
  for (let name of ['name', 'version', 'protocol_version', 'list_commands']) {
    report.startup[name] = (await controller.sendCommand({name})).content
  }
  report.knows = await tracker.knowsCommand('kata-analyze')
  let play = (colour, vertex) => ({name: 'play', args: [colour, vertex]})
  let records = {
    // AB[cc][dd] AW[cb]: Black's two setup stones in a row, then White's, Black to move
    setup: {history: [play('B', 'C3'), play('B', 'D2'), play('W', 'C4')], colour: 'B'},
    // a record that ends in passes, as most do
    passes: {history: [play('B', 'C3'), play('W', 'C2'), play('B', 'pass'), play('W', 'pass')], colour: 'B'},
    // the same start, one move back: the tracker undoes to it
    undone: {history: [play('B', 'C3'), play('W', 'C2')], colour: 'B'},
    handicap: {history: [{name: 'set_free_handicap', args: ['C3', 'B2']}], colour: 'W'},
    empty: {history: [], colour: 'B'}
  }
  let sent = []
  controller.on('command-sent', ({command}) => sent.push(command.name + ' ' + command.args.join(' ')))
  for (let [label, {history, colour}] of Object.entries(records)) {
    sent.length = 0
    let synced = null
    try {
      await tracker.sync({komi: 2.5, boardsize: [5, 5], history})
      synced = true
    } catch (error) {
      synced = String(error)
    }
    let board = (await controller.sendCommand({name: 'showboard'})).content
    let kata = await analyse(tracker, 'kata-analyze', colour)
    let lz = await analyse(tracker, 'lz-analyze', colour)
    report.records.push({label, synced, sent: sent.slice(), board, kata, lz})
  }
  report.stderr = stderr.join('')
  await controller.stop()
  report.exited = exited
  process.stdout.write(JSON.stringify(report) + '\n')
}

main().catch(error => {
  process.stdout.write(JSON.stringify({crash: String(error && error.stack)}) + '\n')
  process.exit(1)
})
