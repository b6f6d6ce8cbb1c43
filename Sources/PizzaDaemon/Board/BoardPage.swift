import PizzaCore

/// The kitchen's board page: one self-contained document (no CDN, no font or script from elsewhere: a kitchen's
/// network may have no internet), kept live by `/board/events`. Columns by status with counts, a ticket per order
/// with its age in the status and since placed, its pizzas in short and its note, yellow and red past the
/// configured marks, an all-day line of pizzas by kind in the kitchen, an optional sound on a new ticket. It
/// times tickets by the daemon's clock (each event carries it), so a screen whose clock is off still shows the
/// right ages. It only reads: there is nothing on the page that changes an order.
enum BoardPage {
    /// Only this document's own inline style and script, and connections back to where it came from.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; "
        + "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>pizzad — kitchen board</title>
        <link rel="icon" href="data:,">
        <style>
        :root { color-scheme: dark; --bg: #111; --card: #1f1f1f; --text: #f2f2f2; --dim: #a0a0a0;
                --warn: #f5c400; --late: #e53935; }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--text);
               font: 20px/1.3 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
        header { display: flex; gap: 1.2em; align-items: baseline; padding: .4em .8em; background: #000; }
        header h1 { font-size: 1.1em; margin: 0; }
        #status { color: var(--dim); }
        #printers .problem, #off.problem { color: #fff; background: var(--late); padding: 0 .4em; border-radius: .2em; margin-right: .4em; }
        #status.down { color: #fff; background: var(--late); padding: 0 .4em; border-radius: .2em; }
        #allday { flex: 1; color: var(--dim); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        label { color: var(--dim); font-size: .8em; }
        main { display: grid; grid-template-columns: repeat(5, minmax(0, 1fr)); gap: .5em; padding: .5em; }
        section h2 { margin: 0 0 .3em; font-size: 1.05em; text-transform: uppercase; letter-spacing: .05em;
                     border-bottom: 3px solid #444; }
        .ticket { background: var(--card); border-left: .45em solid #555; border-radius: .3em;
                  padding: .35em .5em; margin-bottom: .45em; }
        .ticket.warn { border-left-color: var(--warn); background: #2c2700; }
        .ticket.late { border-left-color: var(--late); background: #3a1010; }
        .ticket .top { display: flex; justify-content: space-between; font-weight: 700; font-size: 1.15em; }
        .ticket .age { font-variant-numeric: tabular-nums; }
        .ticket .since { color: var(--dim); font-size: .8em; }
        .ticket .due { font-weight: bold; font-size: .85em; }
        .ticket .due:empty { display: none; }
        .ticket .items { margin-top: .15em; }
        .ticket .note { margin-top: .15em; font-style: italic; color: #ffd7a0; }
        @media (max-width: 900px) { main { grid-template-columns: 1fr; } }
        </style>
        </head>
        <body>
        <header>
          <h1>Kitchen</h1>
          <span id="status">connecting…</span>
          <span id="allday"></span>
          <span id="printers"></span>
          <span id="off"></span>
          <label><input type="checkbox" id="sound"> sound on new tickets</label>
        </header>
        <main id="board"></main>
        <script>
        "use strict";
        const columns = [\(OrderStatus.onBoard.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))];
        const orders = new Map();
        let settings = { showCustomer: true, thresholds: {} };
        let offset = 0;  // the daemon's clock minus this screen's, in ms
        const board = document.getElementById("board");
        const status = document.getElementById("status");
        for (const name of columns) {
          const section = document.createElement("section");
          section.id = "column-" + name;
          section.innerHTML = "<h2></h2><div class=\\"tickets\\"></div>";
          board.appendChild(section);
        }
        function now() { return Date.now() + offset; }
        function clock(text) { if (text) offset = Date.parse(text) - Date.now(); }
        function enteredStatus(order) {
          for (let i = order.history.length - 1; i >= 0; i--) {
            if (order.history[i].to === order.status) return Date.parse(order.history[i].at);
          }
          return Date.parse(order.updatedAt);
        }
        function placedAt(order) {
          const placed = order.history.find(h => h.to === "placed");
          return placed ? Date.parse(placed.at) : Date.parse(order.createdAt);
        }
        // When the order is wanted: its dueAt, or when it was placed for as soon as possible (BoardModel.due).
        function dueAt(order) {
          return order.fulfilment && order.fulfilment.dueAt ? Date.parse(order.fulfilment.dueAt) : placedAt(order);
        }
        function fulfilment(order, t) {
          const f = order.fulfilment || {type: "pickup"};
          let text = f.type === "dinein" ? "table " + (f.table || "?") : f.type;
          if (!f.dueAt) return f.type === "pickup" ? "" : text;
          const due = new Date(Date.parse(f.dueAt));
          text += " " + String(due.getHours()).padStart(2, "0") + ":" + String(due.getMinutes()).padStart(2, "0");
          if (t > due.getTime()) text += ", " + minutes(t - due.getTime()) + " late";
          return text;
        }
        function minutes(ms) {
          const s = Math.max(0, Math.floor(ms / 1000));
          return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
        }
        // Pizza.onBoard's rule, in the page's own script.
        function item(i) {
          let text = (i.quantity > 1 ? i.quantity + "× " : "") + i.kind + " " + i.size;
          if (i.crust && i.crust !== "classic") text += " " + i.crust;
          for (const e of i.extras || []) text += " +" + e;
          if (i.chiliSauce) text += " +chili";
          if (i.ketchup) text += " +ketchup";
          return text;
        }
        function ticket(order) {
          const div = document.createElement("div");
          div.className = "ticket";
          div.id = "ticket-" + order.id;
          const top = document.createElement("div");
          top.className = "top";
          const who = document.createElement("span");
          who.textContent = "#" + order.id + (settings.showCustomer && order.customer ? " " + order.customer : "");
          const age = document.createElement("span");
          age.className = "age";
          top.append(who, age);
          const since = document.createElement("div");
          since.className = "since";
          const items = document.createElement("div");
          items.className = "items";
          items.textContent = order.items.map(i => i.product ? (i.quantity > 1 ? i.quantity + "× " : "") + i.name +
            (i.options || []).map(o => " +" + o).join("") : item(i)).join(", ");
          const due = document.createElement("div");
          due.className = "due";
          div.append(top, since, due, items);
          if (order.note) {
            const note = document.createElement("div");
            note.className = "note";
            note.textContent = order.note;
            div.append(note);
          }
          return div;
        }
        function render() {
          const t = now();
          const kinds = new Map();
          for (const name of columns) {
            const list = [...orders.values()].filter(o => o.status === name)
              .sort((a, b) => dueAt(a) - dueAt(b) || enteredStatus(a) - enteredStatus(b));
            const section = document.getElementById("column-" + name);
            section.querySelector("h2").textContent = name + " (" + list.length + ")";
            const box = section.querySelector(".tickets");
            const wanted = list.map(o => "ticket-" + o.id);
            for (const child of [...box.children]) if (!wanted.includes(child.id)) child.remove();
            list.forEach((o, index) => {
              let div = document.getElementById("ticket-" + o.id);
              if (!div || div.dataset.version !== o.updatedAt) {
                if (div) div.remove();
                div = ticket(o);
                div.dataset.version = o.updatedAt;
              }
              if (box.children[index] !== div) box.insertBefore(div, box.children[index] || null);
              const inStatus = t - enteredStatus(o);
              div.querySelector(".age").textContent = minutes(inStatus);
              div.querySelector(".since").textContent = minutes(t - placedAt(o)) + " since placed";
              div.querySelector(".due").textContent = fulfilment(o, t);
              const [warn, late] = settings.thresholds[name] || [Infinity, Infinity];
              div.classList.toggle("late", inStatus >= late * 1000);
              div.classList.toggle("warn", inStatus >= warn * 1000 && inStatus < late * 1000);
              if (name !== "shipped") {
                for (const i of o.items) if (i.kind) kinds.set(i.kind, (kinds.get(i.kind) || 0) + i.quantity);
              }
            });
          }
          document.getElementById("allday").textContent = "all day: " +
            ([...kinds.entries()].sort().map(([k, n]) => n + "× " + k).join(" · ") || "nothing in the kitchen");
        }
        function beep() {
          if (!document.getElementById("sound").checked) return;
          try {
            const audio = new AudioContext();
            const tone = audio.createOscillator();
            tone.frequency.value = 880;
            tone.connect(audio.destination);
            tone.start();
            tone.stop(audio.currentTime + 0.25);
          } catch (e) {}
        }
        function update(order) {
          const shown = orders.has(order.id);
          if (columns.includes(order.status)) orders.set(order.id, order); else orders.delete(order.id);
          if (!shown && order.status === "placed") beep();
        }
        function printers(list) {
          const box = document.getElementById("printers");
          box.textContent = "";
          for (const p of list || []) {
            if (p.status === "online") continue;
            const badge = document.createElement("span");
            badge.className = "problem";
            badge.textContent = "printer " + p.name + ": " + p.status.replace("_", " ");
            box.appendChild(badge);
          }
        }
        const off = new Set();  // the items taken off the menu ("86")
        function showOff() {
          const box = document.getElementById("off");
          box.textContent = off.size ? "86: " + [...off].sort().join(", ") : "";
          box.className = off.size ? "problem" : "";
        }
        function connect() {
          const events = new EventSource("/board/events");
          events.addEventListener("snapshot", e => {
            const data = JSON.parse(e.data);
            clock(data.now);
            settings = data.board;
            printers(data.printers);
            orders.clear();
            for (const o of data.orders) orders.set(o.id, o);
            off.clear();
            for (const item of data.unavailable || []) off.add(item);
            showOff();
            render();
          });
          events.addEventListener("settings", e => { const d = JSON.parse(e.data); clock(d.now); settings = d.board; });
          events.addEventListener("order", e => { update(JSON.parse(e.data).order); render(); });
          events.addEventListener("shop", e => {
            const d = JSON.parse(e.data);
            if (d.kind !== "availability_changed" || !d.item) return;
            if (d.item.available) off.delete(d.item.name); else off.add(d.item.name);
            showOff();
          });
          events.addEventListener("tick", e => { const d = JSON.parse(e.data); clock(d.now); printers(d.printers); });
          events.addEventListener("dropped", () => { events.close(); setTimeout(connect, 1000); });
          events.onopen = () => { status.textContent = "live"; status.className = ""; };
          events.onerror = () => { status.textContent = "reconnecting…"; status.className = "down"; };
        }
        connect();
        setInterval(render, 1000);
        </script>
        </body>
        </html>

        """
}
