/// `GET /v1/reports/today`: the day's figures at a glance for the manager (CONTRACT section 18): takings by tender and
/// by VAT rate, orders placed and cancelled, what is still owed, refreshed every 5 s. The page holds no figures: it
/// asks for a `manager` device's token, keeps it in the tab's session storage only, and reads `GET /v1/reports/x`
/// and `GET /v1/menu` (for the currency) with it, so that anyone on the shop's network who loads it sees nothing.
enum DayPage {
    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>pizzad: today</title>
        <style>
        body { font-family: system-ui, sans-serif; margin: 1.5em; background: #fafafa; color: #111; }
        h1 { font-size: 1.4em; margin: 0 0 .3em; }
        #status { color: #666; margin-bottom: 1em; }
        #status.down { color: #b00020; font-weight: bold; }
        .big { font-size: 2.4em; font-weight: 700; font-variant-numeric: tabular-nums; }
        table { border-collapse: collapse; margin: .6em 0 1.4em; min-width: 24em; }
        th, td { padding: .25em .8em; border-bottom: 1px solid #ddd; text-align: left; }
        td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
        #login[hidden], #day[hidden] { display: none; }
        </style>
        </head>
        <body>
        <h1>Today so far</h1>
        <div id="status">not signed in</div>
        <form id="login">
          <label>A manager device's token: <input id="token" type="password" autocomplete="off" size="40"></label>
          <button id="show" type="submit">Show</button>
        </form>
        <div id="day" hidden>
          <div>Gross <span id="gross" class="big"></span></div>
          <div id="counts"></div>
          <h2>By tender</h2>
          <table><thead><tr><th>Tender</th><th class="n">In</th><th class="n">Refunded</th><th class="n">Net</th></tr></thead>
          <tbody id="tenders"></tbody></table>
          <h2>By VAT rate</h2>
          <table><thead><tr><th>Rate</th><th class="n">%</th><th class="n">Gross</th><th class="n">Net</th><th class="n">VAT</th></tr></thead>
          <tbody id="taxes"></tbody></table>
          <div>Discounts <span id="discounts"></span>, fees <span id="fees"></span>; still owed <span id="owed"></span></div>
        </div>
        <script>
        "use strict";
        let currency = "";
        function money(cents) {
          const sign = cents < 0 ? "-" : "";
          const value = Math.abs(cents);
          return sign + Math.floor(value / 100) + "." + String(value % 100).padStart(2, "0") + (currency ? " " + currency : "");
        }
        function cell(text, numeric) {
          const td = document.createElement("td");
          td.textContent = text;
          if (numeric) td.className = "n";
          return td;
        }
        function rows(id, lines) {
          const body = document.getElementById(id);
          body.textContent = "";
          for (const line of lines) {
            const tr = document.createElement("tr");
            line.forEach((text, index) => tr.appendChild(cell(text, index > 0)));
            body.appendChild(tr);
          }
        }
        async function get(path) {
          const answer = await fetch(path, { headers: { Authorization: "Bearer " + sessionStorage.getItem("token") } });
          if (answer.status === 401 || answer.status === 403) throw new Error("the token was refused (a manager's is needed)");
          if (!answer.ok) throw new Error("the daemon answered " + answer.status);
          return answer.json();
        }
        async function refresh() {
          const status = document.getElementById("status");
          if (!sessionStorage.getItem("token")) return;
          try {
            if (!currency) currency = (await get("/v1/menu")).currency;
            const x = await get("/v1/reports/x");
            const gross = x.taxes.reduce((sum, t) => sum + t.gross, 0);
            document.getElementById("gross").textContent = money(gross);
            document.getElementById("counts").textContent =
              x.placed.count + " orders placed, " + x.cancelled.count + " cancelled, since Z " + (x.number - 1);
            rows("tenders", x.tenders.map(t => [t.tender, money(t.payments), money(t.refunds), money(t.payments - t.refunds)]));
            rows("taxes", x.taxes.map(t => [t.rate, (t.basisPoints / 100).toFixed(2), money(t.gross), money(t.net), money(t.tax)]));
            document.getElementById("discounts").textContent = money(x.discounts);
            document.getElementById("fees").textContent = money(x.fees);
            document.getElementById("owed").textContent = money(x.openBalance);
            document.getElementById("login").hidden = true;
            document.getElementById("day").hidden = false;
            status.textContent = "updated " + new Date().toLocaleTimeString() + " (audit entries to " + x.lastSeq + ")";
            status.className = "";
          } catch (error) {
            status.textContent = error.message;
            status.className = "down";
            if (error.message.startsWith("the token")) {
              sessionStorage.removeItem("token");
              document.getElementById("login").hidden = false;
              document.getElementById("day").hidden = true;
            }
          }
        }
        document.getElementById("login").addEventListener("submit", event => {
          event.preventDefault();
          sessionStorage.setItem("token", document.getElementById("token").value.trim());
          document.getElementById("token").value = "";
          refresh();
        });
        refresh();
        setInterval(refresh, 5000);
        </script>
        </body>
        </html>

        """
}
