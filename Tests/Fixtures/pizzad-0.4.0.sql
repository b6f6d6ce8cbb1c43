-- A pizzad 0.4.0 database (schema 6: the six migrations 0.4.0 shipped) with orders in every kind of state, written
-- by pizzad and pizzactl of that schema, then dumped with sqlite3 .dump. PizzaTesting.OldShop makes it a file.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    checksum   TEXT NOT NULL CHECK (length(checksum) = 64),
    applied_at TEXT NOT NULL
) STRICT;
INSERT INTO schema_migrations VALUES(1,'0001_initial.sql','d062978a8feb3acff83a8a422d0de983997c5ef258d4707f890ede3ef8bd9e49','2026-12-06T08:27:05.796Z');
INSERT INTO schema_migrations VALUES(2,'0002_checks_without_in_lists.sql','4acefcef75a52e903a187179019b7e395be96725db8cfcac6d3afd6460369465','2026-12-06T08:27:05.796Z');
INSERT INTO schema_migrations VALUES(3,'0003_active_orders_by_status_age.sql','1075546a56927e61016bf235eafdfe89d018cf8bf449a490514b0c4aa8251104','2026-12-06T08:27:05.796Z');
INSERT INTO schema_migrations VALUES(4,'0004_replication_state.sql','924480b1b51336be3931dbdd658d0cbd2ea37be46b51902c64f0113a9ba4f307','2026-12-06T08:27:05.796Z');
INSERT INTO schema_migrations VALUES(5,'0005_devices_and_requests.sql','0156867e23a03dcef575b306d25e64571d55df0610c4d9e0a253952131756987','2026-12-06T08:27:05.796Z');
INSERT INTO schema_migrations VALUES(6,'0006_outbox.sql','d2b6c3ad6bd9f59152b4db8722b439897c964d1d28e8d424195c9c80247d79c6','2026-12-06T08:27:05.796Z');
CREATE TABLE IF NOT EXISTS "carts" (
    id         INTEGER PRIMARY KEY,
    ref        TEXT UNIQUE CHECK (ref IS NULL OR length(ref) BETWEEN 1 AND 200),
    customer   TEXT,
    note       TEXT,
    status     TEXT NOT NULL CHECK (status = 'open' OR status = 'placed' OR status = 'preparing' OR status = 'baking'
                   OR status = 'boxed' OR status = 'shipped' OR status = 'delivered' OR status = 'cancelled'),
    currency   TEXT NOT NULL CHECK (length(currency) = 3),
    total      INTEGER NOT NULL CHECK (total >= 0),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
) STRICT;
INSERT INTO carts VALUES(1,'till-1','Guest 1',NULL,'delivered','EUR',3560,'2026-12-06T08:27:07.795Z','2026-12-06T08:27:07.920Z');
INSERT INTO carts VALUES(2,'till-2','Guest 2',NULL,'cancelled','EUR',3560,'2026-12-06T08:27:07.808Z','2026-12-06T08:27:07.934Z');
INSERT INTO carts VALUES(3,'till-3','Guest 3',NULL,'preparing','EUR',3560,'2026-12-06T08:27:07.819Z','2026-12-06T08:27:07.946Z');
INSERT INTO carts VALUES(4,'till-4','Guest 4',NULL,'placed','EUR',3560,'2026-12-06T08:27:07.830Z','2026-12-06T08:27:07.830Z');
INSERT INTO carts VALUES(5,'till-5','Guest 5',NULL,'placed','EUR',3560,'2026-12-06T08:27:07.842Z','2026-12-06T08:27:07.842Z');
INSERT INTO carts VALUES(6,'till-6','Guest 6',NULL,'placed','EUR',3560,'2026-12-06T08:27:07.852Z','2026-12-06T08:27:07.852Z');
INSERT INTO carts VALUES(7,NULL,'Open one',NULL,'open','EUR',700,'2026-12-06T08:27:07.865Z','2026-12-06T08:27:07.865Z');
CREATE TABLE IF NOT EXISTS "pizzas" (
    id          INTEGER PRIMARY KEY,
    cart_id     INTEGER NOT NULL REFERENCES "carts" (id),
    kind        TEXT NOT NULL,
    size        TEXT NOT NULL CHECK (size = 'S' OR size = 'M' OR size = 'L' OR size = 'XL'),
    crust       TEXT NOT NULL,
    chili_sauce INTEGER NOT NULL CHECK (chili_sauce IN (0, 1)),
    ketchup     INTEGER NOT NULL CHECK (ketchup IN (0, 1)),
    extras      TEXT NOT NULL DEFAULT '',
    quantity    INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 50),
    unit_price  INTEGER NOT NULL CHECK (unit_price >= 0)
) STRICT;
INSERT INTO pizzas VALUES(1,1,'cheese','M','classic',0,0,'',1,900);
INSERT INTO pizzas VALUES(2,1,'chicken','L','classic',0,0,'olives',2,1330);
INSERT INTO pizzas VALUES(3,2,'cheese','M','classic',0,0,'',1,900);
INSERT INTO pizzas VALUES(4,2,'chicken','L','classic',0,0,'olives',2,1330);
INSERT INTO pizzas VALUES(5,3,'cheese','M','classic',0,0,'',1,900);
INSERT INTO pizzas VALUES(6,3,'chicken','L','classic',0,0,'olives',2,1330);
INSERT INTO pizzas VALUES(7,4,'cheese','M','classic',0,0,'',1,900);
INSERT INTO pizzas VALUES(8,4,'chicken','L','classic',0,0,'olives',2,1330);
INSERT INTO pizzas VALUES(9,5,'cheese','M','classic',0,0,'',1,900);
INSERT INTO pizzas VALUES(10,5,'chicken','L','classic',0,0,'olives',2,1330);
INSERT INTO pizzas VALUES(11,6,'cheese','M','classic',0,0,'',1,900);
INSERT INTO pizzas VALUES(12,6,'chicken','L','classic',0,0,'olives',2,1330);
INSERT INTO pizzas VALUES(13,7,'cheese','S','classic',0,0,'',1,700);
CREATE TABLE IF NOT EXISTS "status_history" (
    id          INTEGER PRIMARY KEY,
    cart_id     INTEGER NOT NULL REFERENCES "carts" (id),
    from_status TEXT CHECK (from_status IS NULL OR from_status = 'open' OR from_status = 'placed'
                    OR from_status = 'preparing' OR from_status = 'baking' OR from_status = 'boxed'
                    OR from_status = 'shipped' OR from_status = 'delivered' OR from_status = 'cancelled'),
    to_status   TEXT NOT NULL CHECK (to_status = 'open' OR to_status = 'placed' OR to_status = 'preparing'
                    OR to_status = 'baking' OR to_status = 'boxed' OR to_status = 'shipped'
                    OR to_status = 'delivered' OR to_status = 'cancelled'),
    at          TEXT NOT NULL,
    actor_uid   INTEGER NOT NULL,
    actor_name  TEXT NOT NULL,
    actor_pid   INTEGER NOT NULL,
    reason      TEXT
, actor_device TEXT
    CHECK (actor_device IS NULL OR length(actor_device) BETWEEN 1 AND 64), actor_address TEXT CHECK (actor_address IS NULL OR length(actor_address) <= 64)) STRICT;
INSERT INTO status_history VALUES(1,1,NULL,'open','2026-12-06T08:27:07.795Z',0,'root',17704,NULL,NULL,NULL);
INSERT INTO status_history VALUES(2,1,'open','placed','2026-12-06T08:27:07.795Z',0,'root',17704,NULL,NULL,NULL);
INSERT INTO status_history VALUES(3,2,NULL,'open','2026-12-06T08:27:07.808Z',0,'root',17712,NULL,NULL,NULL);
INSERT INTO status_history VALUES(4,2,'open','placed','2026-12-06T08:27:07.808Z',0,'root',17712,NULL,NULL,NULL);
INSERT INTO status_history VALUES(5,3,NULL,'open','2026-12-06T08:27:07.819Z',0,'root',17719,NULL,NULL,NULL);
INSERT INTO status_history VALUES(6,3,'open','placed','2026-12-06T08:27:07.819Z',0,'root',17719,NULL,NULL,NULL);
INSERT INTO status_history VALUES(7,4,NULL,'open','2026-12-06T08:27:07.830Z',0,'root',17726,NULL,NULL,NULL);
INSERT INTO status_history VALUES(8,4,'open','placed','2026-12-06T08:27:07.830Z',0,'root',17726,NULL,NULL,NULL);
INSERT INTO status_history VALUES(9,5,NULL,'open','2026-12-06T08:27:07.842Z',0,'root',17733,NULL,NULL,NULL);
INSERT INTO status_history VALUES(10,5,'open','placed','2026-12-06T08:27:07.842Z',0,'root',17733,NULL,NULL,NULL);
INSERT INTO status_history VALUES(11,6,NULL,'open','2026-12-06T08:27:07.852Z',0,'root',17740,NULL,NULL,NULL);
INSERT INTO status_history VALUES(12,6,'open','placed','2026-12-06T08:27:07.852Z',0,'root',17740,NULL,NULL,NULL);
INSERT INTO status_history VALUES(13,7,NULL,'open','2026-12-06T08:27:07.865Z',0,'root',17747,NULL,NULL,NULL);
INSERT INTO status_history VALUES(14,1,'placed','preparing','2026-12-06T08:27:07.875Z',0,'root',17754,NULL,NULL,NULL);
INSERT INTO status_history VALUES(15,1,'preparing','baking','2026-12-06T08:27:07.886Z',0,'root',17761,NULL,NULL,NULL);
INSERT INTO status_history VALUES(16,1,'baking','boxed','2026-12-06T08:27:07.897Z',0,'root',17768,NULL,NULL,NULL);
INSERT INTO status_history VALUES(17,1,'boxed','shipped','2026-12-06T08:27:07.909Z',0,'root',17775,NULL,NULL,NULL);
INSERT INTO status_history VALUES(18,1,'shipped','delivered','2026-12-06T08:27:07.920Z',0,'root',17782,NULL,NULL,NULL);
INSERT INTO status_history VALUES(19,2,'placed','cancelled','2026-12-06T08:27:07.934Z',0,'root',17789,'no show',NULL,NULL);
INSERT INTO status_history VALUES(20,3,'placed','preparing','2026-12-06T08:27:07.946Z',0,'root',17796,NULL,NULL,NULL);
CREATE TABLE IF NOT EXISTS "audit_log" (
    seq          INTEGER PRIMARY KEY,
    at           TEXT NOT NULL,
    actor_uid    INTEGER NOT NULL,
    actor_name   TEXT NOT NULL,
    actor_pid    INTEGER NOT NULL,
    action       TEXT NOT NULL CHECK (action = 'created' OR action = 'item_added' OR action = 'item_removed'
                     OR action = 'placed' OR action = 'advanced' OR action = 'cancelled'),
    order_id     INTEGER NOT NULL REFERENCES "carts" (id),
    status_after TEXT NOT NULL CHECK (status_after = 'open' OR status_after = 'placed'
                     OR status_after = 'preparing' OR status_after = 'baking' OR status_after = 'boxed'
                     OR status_after = 'shipped' OR status_after = 'delivered' OR status_after = 'cancelled'),
    reason       TEXT,
    before       TEXT,
    after        TEXT NOT NULL,
    prev_hash    TEXT NOT NULL CHECK (length(prev_hash) = 64),
    hash         TEXT NOT NULL CHECK (length(hash) = 64)
, actor_device TEXT CHECK (actor_device IS NULL OR length(actor_device) BETWEEN 1 AND 64), actor_address TEXT CHECK (actor_address IS NULL OR length(actor_address) <= 64)) STRICT;
INSERT INTO audit_log VALUES(1,'2026-12-06T08:27:07.795Z',0,'root',17704,'created',1,'placed',NULL,NULL,'{"id":1,"ref":"till-1","customer":"Guest 1","note":null,"status":"placed","items":[{"id":1,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900},{"id":2,"kind":"chicken","size":"L","crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":2,"unitPrice":1330,"price":2660}],"total":3560,"currency":"EUR","createdAt":"2026-12-06T08:27:07.795Z","updatedAt":"2026-12-06T08:27:07.795Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null}]}','0000000000000000000000000000000000000000000000000000000000000000','608fa932ac0e0ed53746952f0e52269f29429a3e3fbd53b2cc155444e21b8205',NULL,NULL);
INSERT INTO audit_log VALUES(2,'2026-12-06T08:27:07.808Z',0,'root',17712,'created',2,'placed',NULL,NULL,'{"id":2,"ref":"till-2","customer":"Guest 2","note":null,"status":"placed","items":[{"id":3,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900},{"id":4,"kind":"chicken","size":"L","crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":2,"unitPrice":1330,"price":2660}],"total":3560,"currency":"EUR","createdAt":"2026-12-06T08:27:07.808Z","updatedAt":"2026-12-06T08:27:07.808Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.808Z","actor":{"uid":0,"name":"root","pid":17712},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T08:27:07.808Z","actor":{"uid":0,"name":"root","pid":17712},"reason":null}]}','608fa932ac0e0ed53746952f0e52269f29429a3e3fbd53b2cc155444e21b8205','c19be6861428ce1e09faa7e9a976f8f99d85646dd58856131d664a836db5d177',NULL,NULL);
INSERT INTO audit_log VALUES(3,'2026-12-06T08:27:07.819Z',0,'root',17719,'created',3,'placed',NULL,NULL,'{"id":3,"ref":"till-3","customer":"Guest 3","note":null,"status":"placed","items":[{"id":5,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900},{"id":6,"kind":"chicken","size":"L","crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":2,"unitPrice":1330,"price":2660}],"total":3560,"currency":"EUR","createdAt":"2026-12-06T08:27:07.819Z","updatedAt":"2026-12-06T08:27:07.819Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.819Z","actor":{"uid":0,"name":"root","pid":17719},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T08:27:07.819Z","actor":{"uid":0,"name":"root","pid":17719},"reason":null}]}','c19be6861428ce1e09faa7e9a976f8f99d85646dd58856131d664a836db5d177','199c21765262dfef12117855bd8780c0362ea193c72d5ed95eb5a55033fbe76b',NULL,NULL);
INSERT INTO audit_log VALUES(4,'2026-12-06T08:27:07.830Z',0,'root',17726,'created',4,'placed',NULL,NULL,'{"id":4,"ref":"till-4","customer":"Guest 4","note":null,"status":"placed","items":[{"id":7,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900},{"id":8,"kind":"chicken","size":"L","crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":2,"unitPrice":1330,"price":2660}],"total":3560,"currency":"EUR","createdAt":"2026-12-06T08:27:07.830Z","updatedAt":"2026-12-06T08:27:07.830Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.830Z","actor":{"uid":0,"name":"root","pid":17726},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T08:27:07.830Z","actor":{"uid":0,"name":"root","pid":17726},"reason":null}]}','199c21765262dfef12117855bd8780c0362ea193c72d5ed95eb5a55033fbe76b','355d427c9f4bed08e4576f2cf71a99e26b42a4041631156e6b6bfb8baacbeba0',NULL,NULL);
INSERT INTO audit_log VALUES(5,'2026-12-06T08:27:07.842Z',0,'root',17733,'created',5,'placed',NULL,NULL,'{"id":5,"ref":"till-5","customer":"Guest 5","note":null,"status":"placed","items":[{"id":9,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900},{"id":10,"kind":"chicken","size":"L","crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":2,"unitPrice":1330,"price":2660}],"total":3560,"currency":"EUR","createdAt":"2026-12-06T08:27:07.842Z","updatedAt":"2026-12-06T08:27:07.842Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.842Z","actor":{"uid":0,"name":"root","pid":17733},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T08:27:07.842Z","actor":{"uid":0,"name":"root","pid":17733},"reason":null}]}','355d427c9f4bed08e4576f2cf71a99e26b42a4041631156e6b6bfb8baacbeba0','0c5c229a3af44879d365c5717fbe634c8f5fb13286ee73e4d586f83205679066',NULL,NULL);
INSERT INTO audit_log VALUES(6,'2026-12-06T08:27:07.852Z',0,'root',17740,'created',6,'placed',NULL,NULL,'{"id":6,"ref":"till-6","customer":"Guest 6","note":null,"status":"placed","items":[{"id":11,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900},{"id":12,"kind":"chicken","size":"L","crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":2,"unitPrice":1330,"price":2660}],"total":3560,"currency":"EUR","createdAt":"2026-12-06T08:27:07.852Z","updatedAt":"2026-12-06T08:27:07.852Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.852Z","actor":{"uid":0,"name":"root","pid":17740},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T08:27:07.852Z","actor":{"uid":0,"name":"root","pid":17740},"reason":null}]}','0c5c229a3af44879d365c5717fbe634c8f5fb13286ee73e4d586f83205679066','48b98bae678c7869f54cd5feb05b325ccf614a7a9da69fce4e8a2340a99de441',NULL,NULL);
INSERT INTO audit_log VALUES(7,'2026-12-06T08:27:07.865Z',0,'root',17747,'created',7,'open',NULL,NULL,'{"id":7,"ref":null,"customer":"Open one","note":null,"status":"open","items":[{"id":13,"kind":"cheese","size":"S","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":700,"price":700}],"total":700,"currency":"EUR","createdAt":"2026-12-06T08:27:07.865Z","updatedAt":"2026-12-06T08:27:07.865Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.865Z","actor":{"uid":0,"name":"root","pid":17747},"reason":null}]}','48b98bae678c7869f54cd5feb05b325ccf614a7a9da69fce4e8a2340a99de441','f2f3a24ccb56a3b0e310e8a084e4933451abf0bdaf5a1678acd975bdaec0548f',NULL,NULL);
INSERT INTO audit_log VALUES(8,'2026-12-06T08:27:07.875Z',0,'root',17754,'advanced',1,'preparing',NULL,'{"id":1,"ref":"till-1","customer":"Guest 1","note":null,"status":"placed","items":[{"id":1,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900},{"id":2,"kind":"chicken","size":"L","crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":2,"unitPrice":1330,"price":2660}],"total":3560,"currency":"EUR","createdAt":"2026-12-06T08:27:07.795Z","updatedAt":"2026-12-06T08:27:07.795Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null}]}','{"id":1,"ref":"till-1","customer":"Guest 1","note":null,"status":"preparing","items":[{"id":1,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900},{"id":2,"kind":"chicken","size":"L","crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":2,"unitPrice":1330,"price":2660}],"total":3560,"currency":"EUR","createdAt":"2026-12-06T08:27:07.795Z","updatedAt":"2026-12-06T08:27:07.875Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null},{"from":"placed","to":"preparing","at":"2026-12-06T08:27:07.875Z","actor":{"uid":0,"name":"root","pid":17754},"reason":null}]}','f2f3a24ccb56a3b0e310e8a084e4933451abf0bdaf5a1678acd975bdaec0548f','86df801e952eab779a86174343a0e8421c6454d1d34d441de4bd69c83d40c191',NULL,NULL);
INSERT INTO audit_log VALUES(9,'2026-12-06T08:27:07.886Z',0,'root',17761,'advanced',1,'baking',NULL,'{"id":1,"ref":"till-1","customer":"Guest 1","note":null,"status":"preparing","items":[{"id":1,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900},{"id":2,"kind":"chicken","size":"L","crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":2,"unitPrice":1330,"price":2660}],"total":3560,"currency":"EUR","createdAt":"2026-12-06T08:27:07.795Z","updatedAt":"2026-12-06T08:27:07.875Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null},{"from":"placed","to":"preparing","at":"2026-12-06T08:27:07.875Z","actor":{"uid":0,"name":"root","pid":17754},"reason":null}]}','{"id":1,"ref":"till-1","customer":"Guest 1","note":null,"status":"baking","items":[{"id":1,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900},{"id":2,"kind":"chicken","size":"L","crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":2,"unitPrice":1330,"price":2660}],"total":3560,"currency":"EUR","createdAt":"2026-12-06T08:27:07.795Z","updatedAt":"2026-12-06T08:27:07.886Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null},{"from":"placed","to":"preparing","at":"2026-12-06T08:27:07.875Z","actor":{"uid":0,"name":"root","pid":17754},"reason":null},{"from":"preparing","to":"baking","at":"2026-12-06T08:27:07.886Z","actor":{"uid":0,"name":"root","pid":17761},"reason":null}]}','86df801e952eab779a86174343a0e8421c6454d1d34d441de4bd69c83d40c191','01445b7b9ba774ed03e22f76e5c5ffb08eb07322c2829914a7f153ca247eb7da',NULL,NULL);
INSERT INTO audit_log VALUES(10,'2026-12-06T08:27:07.897Z',0,'root',17768,'advanced',1,'boxed',NULL,'{"id":1,"ref":"till-1","customer":"Guest 1","note":null,"status":"baking","items":[{"id":1,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900},{"id":2,"kind":"chicken","size":"L","crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":2,"unitPrice":1330,"price":2660}],"total":3560,"currency":"EUR","createdAt":"2026-12-06T08:27:07.795Z","updatedAt":"2026-12-06T08:27:07.886Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null},{"from":"placed","to":"preparing","at":"2026-12-06T08:27:07.875Z","actor":{"uid":0,"name":"root","pid":17754},"reason":null},{"from":"preparing","to":"baking","at":"2026-12-06T08:27:07.886Z","actor":{"uid":0,"name":"root","pid":17761},"reason":null}]}','{"id":1,"ref":"till-1","customer":"Guest 1","note":null,"status":"boxed","items":[{"id":1,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900},{"id":2,"kind":"chicken","size":"L","crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":2,"unitPrice":1330,"price":2660}],"total":3560,"currency":"EUR","createdAt":"2026-12-06T08:27:07.795Z","updatedAt":"2026-12-06T08:27:07.897Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null},{"from":"placed","to":"preparing","at":"2026-12-06T08:27:07.875Z","actor":{"uid":0,"name":"root","pid":17754},"reason":null},{"from":"preparing","to":"baking","at":"2026-12-06T08:27:07.886Z","actor":{"uid":0,"name":"root","pid":17761},"reason":null},{"from":"baking","to":"boxed","at":"2026-12-06T08:27:07.897Z","actor":{"uid":0,"name":"root","pid":17768},"reason":null}]}','01445b7b9ba774ed03e22f76e5c5ffb08eb07322c2829914a7f153ca247eb7da','41ff5d970450ed2f8fa078618192b55183ec299204f4a0c77f5649cd5a0aaaed',NULL,NULL);
INSERT INTO audit_log VALUES(11,'2026-12-06T08:27:07.909Z',0,'root',17775,'advanced',1,'shipped',NULL,'{"id":1,"ref":"till-1","customer":"Guest 1","note":null,"status":"boxed","items":[{"id":1,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900},{"id":2,"kind":"chicken","size":"L","crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":2,"unitPrice":1330,"price":2660}],"total":3560,"currency":"EUR","createdAt":"2026-12-06T08:27:07.795Z","updatedAt":"2026-12-06T08:27:07.897Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null},{"from":"placed","to":"preparing","at":"2026-12-06T08:27:07.875Z","actor":{"uid":0,"name":"root","pid":17754},"reason":null},{"from":"preparing","to":"baking","at":"2026-12-06T08:27:07.886Z","actor":{"uid":0,"name":"root","pid":17761},"reason":null},{"from":"baking","to":"boxed","at":"2026-12-06T08:27:07.897Z","actor":{"uid":0,"name":"root","pid":17768},"reason":null}]}','{"id":1,"ref":"till-1","customer":"Guest 1","note":null,"status":"shipped","items":[{"id":1,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900},{"id":2,"kind":"chicken","size":"L","crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":2,"unitPrice":1330,"price":2660}],"total":3560,"currency":"EUR","createdAt":"2026-12-06T08:27:07.795Z","updatedAt":"2026-12-06T08:27:07.909Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null},{"from":"placed","to":"preparing","at":"2026-12-06T08:27:07.875Z","actor":{"uid":0,"name":"root","pid":17754},"reason":null},{"from":"preparing","to":"baking","at":"2026-12-06T08:27:07.886Z","actor":{"uid":0,"name":"root","pid":17761},"reason":null},{"from":"baking","to":"boxed","at":"2026-12-06T08:27:07.897Z","actor":{"uid":0,"name":"root","pid":17768},"reason":null},{"from":"boxed","to":"shipped","at":"2026-12-06T08:27:07.909Z","actor":{"uid":0,"name":"root","pid":17775},"reason":null}]}','41ff5d970450ed2f8fa078618192b55183ec299204f4a0c77f5649cd5a0aaaed','324542404e794c67d891ae1212aba8e88c0fa50984118e4367b65e453064d6c0',NULL,NULL);
INSERT INTO audit_log VALUES(12,'2026-12-06T08:27:07.920Z',0,'root',17782,'advanced',1,'delivered',NULL,'{"id":1,"ref":"till-1","customer":"Guest 1","note":null,"status":"shipped","items":[{"id":1,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900},{"id":2,"kind":"chicken","size":"L","crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":2,"unitPrice":1330,"price":2660}],"total":3560,"currency":"EUR","createdAt":"2026-12-06T08:27:07.795Z","updatedAt":"2026-12-06T08:27:07.909Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null},{"from":"placed","to":"preparing","at":"2026-12-06T08:27:07.875Z","actor":{"uid":0,"name":"root","pid":17754},"reason":null},{"from":"preparing","to":"baking","at":"2026-12-06T08:27:07.886Z","actor":{"uid":0,"name":"root","pid":17761},"reason":null},{"from":"baking","to":"boxed","at":"2026-12-06T08:27:07.897Z","actor":{"uid":0,"name":"root","pid":17768},"reason":null},{"from":"boxed","to":"shipped","at":"2026-12-06T08:27:07.909Z","actor":{"uid":0,"name":"root","pid":17775},"reason":null}]}','{"id":1,"ref":"till-1","customer":"Guest 1","note":null,"status":"delivered","items":[{"id":1,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900},{"id":2,"kind":"chicken","size":"L","crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":2,"unitPrice":1330,"price":2660}],"total":3560,"currency":"EUR","createdAt":"2026-12-06T08:27:07.795Z","updatedAt":"2026-12-06T08:27:07.920Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T08:27:07.795Z","actor":{"uid":0,"name":"root","pid":17704},"reason":null},{"from":"placed","to":"preparing","at":"2026-12-06T08:27:07.875Z","actor":{"uid":0,"name":"root","pid":17754},"reason":null},{"from":"preparing","to":"baking","at":"2026-12-06T08:27:07.886Z","actor":{"uid":0,"name":"root","pid":17761},"reason":null},{"from":"baking","to":"boxed","at":"2026-12-06T08:27:07.897Z","actor":{"uid":0,"name":"root","pid":17768},"reason":null},{"from":"boxed","to":"shipped","at":"2026-12-06T08:27:07.909Z","actor":{"uid":0,"name":"root","pid":17775},"reason":null},{"from":"shipped","to":"delivered","at":"2026-12-06T08:27:07.920Z","actor":{"uid":0,"name":"root","pid":17782},"reason":null}]}','324542404e794c67d891ae1212aba8e88c0fa50984118e4367b65e453064d6c0','437bd6682ce421d08f1cfbfc3f648c70583543fa1c4a276893f003aee50d4efb',NULL,NULL);
INSERT INTO audit_log VALUES(13,'2026-12-06T08:27:07.934Z',0,'root',17789,'cancelled',2,'cancelled','no show','{"id":2,"ref":"till-2","customer":"Guest 2","note":null,"status":"placed","items":[{"id":3,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900},{"id":4,"kind":"chicken","size":"L","crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":2,"unitPrice":1330,"price":2660}],"total":3560,"currency":"EUR","createdAt":"2026-12-06T08:27:07.808Z","updatedAt":"2026-12-06T08:27:07.808Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.808Z","actor":{"uid":0,"name":"root","pid":17712},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T08:27:07.808Z","actor":{"uid":0,"name":"root","pid":17712},"reason":null}]}','{"id":2,"ref":"till-2","customer":"Guest 2","note":null,"status":"cancelled","items":[{"id":3,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900},{"id":4,"kind":"chicken","size":"L","crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":2,"unitPrice":1330,"price":2660}],"total":3560,"currency":"EUR","createdAt":"2026-12-06T08:27:07.808Z","updatedAt":"2026-12-06T08:27:07.934Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.808Z","actor":{"uid":0,"name":"root","pid":17712},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T08:27:07.808Z","actor":{"uid":0,"name":"root","pid":17712},"reason":null},{"from":"placed","to":"cancelled","at":"2026-12-06T08:27:07.934Z","actor":{"uid":0,"name":"root","pid":17789},"reason":"no show"}]}','437bd6682ce421d08f1cfbfc3f648c70583543fa1c4a276893f003aee50d4efb','82d00b90eef075d280fb61a51dfd332fb758589596b86f6bd8d74ce7346a1534',NULL,NULL);
INSERT INTO audit_log VALUES(14,'2026-12-06T08:27:07.946Z',0,'root',17796,'advanced',3,'preparing',NULL,'{"id":3,"ref":"till-3","customer":"Guest 3","note":null,"status":"placed","items":[{"id":5,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900},{"id":6,"kind":"chicken","size":"L","crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":2,"unitPrice":1330,"price":2660}],"total":3560,"currency":"EUR","createdAt":"2026-12-06T08:27:07.819Z","updatedAt":"2026-12-06T08:27:07.819Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.819Z","actor":{"uid":0,"name":"root","pid":17719},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T08:27:07.819Z","actor":{"uid":0,"name":"root","pid":17719},"reason":null}]}','{"id":3,"ref":"till-3","customer":"Guest 3","note":null,"status":"preparing","items":[{"id":5,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900},{"id":6,"kind":"chicken","size":"L","crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":2,"unitPrice":1330,"price":2660}],"total":3560,"currency":"EUR","createdAt":"2026-12-06T08:27:07.819Z","updatedAt":"2026-12-06T08:27:07.946Z","history":[{"from":null,"to":"open","at":"2026-12-06T08:27:07.819Z","actor":{"uid":0,"name":"root","pid":17719},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T08:27:07.819Z","actor":{"uid":0,"name":"root","pid":17719},"reason":null},{"from":"placed","to":"preparing","at":"2026-12-06T08:27:07.946Z","actor":{"uid":0,"name":"root","pid":17796},"reason":null}]}','82d00b90eef075d280fb61a51dfd332fb758589596b86f6bd8d74ce7346a1534','84ad53a18e649fbb3b5d849f0c6d6abdfd6c18c4c9edff71f554111bd72fe406',NULL,NULL);
CREATE TABLE replication_state (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    shop_key     TEXT NOT NULL CHECK (length(shop_key) = 32),
    shipped_seq  INTEGER NOT NULL CHECK (shipped_seq >= 0),
    shipped_hash TEXT NOT NULL CHECK (length(shipped_hash) = 64),
    shipped_at   TEXT
) STRICT;
INSERT INTO replication_state VALUES(1,'8f07696560f39942bea5a1d2fd113428',0,'0000000000000000000000000000000000000000000000000000000000000000',NULL);
CREATE TABLE api_devices (
    name           TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
    role           TEXT NOT NULL CHECK (role IN ('till', 'kitchen', 'reader', 'platform')),
    token_sha256   TEXT UNIQUE CHECK (token_sha256 IS NULL OR length(token_sha256) = 64),
    signing_secret TEXT,
    created_at     TEXT NOT NULL,
    revoked_at     TEXT,
    last_seen_at   TEXT,
    last_address   TEXT,
    CHECK ((token_sha256 IS NULL) <> (signing_secret IS NULL))
) STRICT;
CREATE TABLE api_requests (
    device      TEXT NOT NULL,
    key         TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    request     TEXT NOT NULL CHECK (length(request) = 64),
    seq         INTEGER NOT NULL REFERENCES audit_log (seq),
    status      INTEGER NOT NULL CHECK (status BETWEEN 200 AND 299),
    created_at  TEXT NOT NULL,
    PRIMARY KEY (device, key)
) STRICT, WITHOUT ROWID;
CREATE TABLE outbox_destinations (
    name            TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
    kind            TEXT NOT NULL CHECK (kind IN ('printer', 'webhook')),
    delivered_seq   INTEGER NOT NULL CHECK (delivered_seq >= 0),
    attempted_seq   INTEGER NOT NULL DEFAULT 0 CHECK (attempted_seq >= 0),
    failing_since   TEXT,
    last_error      TEXT,
    disabled_at     TEXT,
    disabled_reason TEXT,
    created_at      TEXT NOT NULL
) STRICT;
CREATE INDEX carts_by_status ON carts (status, id);
CREATE INDEX carts_by_created_at ON carts (created_at);
CREATE INDEX pizzas_by_cart ON pizzas (cart_id, id);
CREATE INDEX status_history_by_cart ON status_history (cart_id, id);
CREATE INDEX audit_log_by_order ON audit_log (order_id, seq);
CREATE INDEX carts_active_by_status_age ON carts (status, updated_at)
    WHERE status <> 'delivered' AND status <> 'cancelled';
CREATE INDEX api_requests_by_age ON api_requests (created_at);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
COMMIT;
PRAGMA application_id = 1346984516;
PRAGMA user_version = 6;
