/*
 The GUI services of ONOS 2.5.6's legacy GUI that the BNG Pod view injects,
 as the harness provides them (module onosHarness), and nothing else:

   WebSocketService    createWebSocket, bindHandlers, unbindHandlers,
                       sendEvent, isConnected (TableBuilderService's use)
   TableBuilderService buildTable
   FlashService        flash

 Each behaves as ONOS's does (the websocket to /onos/ui/websock/core, its
 first message the authentication with the page's token; a table's
 <tag>DataRequest with the sort parameters and the query, answered by
 <tag>DataResponse whose <tag>s and annots land on the scope; a refresh
 every 2 s while no request is outstanding; handlers unbound with the
 scope). Where ONOS only logs a warning for a mistake that leaves a view
 silently broken (an event nobody handles, a handler bound twice, an
 unknown option, a handler that throws), the harness records a failure in
 window.bngpodHarness.failures and on the console, and the test fails.
 */

(function () {
    'use strict';

    var harness = window.bngpodHarness = {
        failures: [],
        received: [],   // event types the page got, in order
        sent: []        // event types the page sent, in order
    };

    function fail(what) {
        harness.failures.push(what);
        if (window.console) {
            window.console.error('HARNESS FAILURE: ' + what);
        }
    }

    function isF(f) {
        return typeof f === 'function' ? f : null;
    }

    function isObject(o) {
        return o !== null && typeof o === 'object' && !Array.isArray(o);
    }

    angular.module('onosHarness', [])

        // an exception anywhere in Angular (a controller that does not exist,
        // an expression that throws) fails the test
        .config(['$provide', function ($provide) {
            $provide.decorator('$exceptionHandler', ['$delegate', function ($delegate) {
                return function (exception, cause) {
                    fail('Angular: ' + exception + (cause ? ' (' + cause + ')' : ''));
                    $delegate(exception, cause);
                };
            }]);
        }])

        .factory('WebSocketService', ['$log', '$location', function ($log, $location) {
            var ws = null,
                wsUp = false,
                handlers = {},
                pending = [];

            function send(ev) {
                harness.sent.push(ev.event);
                ws.send(JSON.stringify(ev));
            }

            var builtin = {
                bootstrap: function (data) {
                    harness.user = data.user;
                },
                error: function (data) {
                    fail('the server answered an error: ' + JSON.stringify(data));
                }
            };

            function createWebSocket() {
                var url = ($location.protocol() === 'https' ? 'wss' : 'ws') + '://' + $location.host() + ':' +
                    $location.port() + '/onos/ui/websock/core';
                ws = new WebSocket(url);
                ws.onopen = function () {
                    // ONOS authenticates the websocket with the page's token first
                    send({ event: 'authentication', payload: { token: window.onosAuth } });
                    pending.forEach(send);
                    pending = [];
                    wsUp = true;
                };
                ws.onmessage = function (msg) {
                    var ev, h;
                    try {
                        ev = JSON.parse(msg.data);
                    } catch (e) {
                        fail('message is not JSON: ' + msg.data);
                        return;
                    }
                    harness.received.push(ev.event);
                    h = builtin[ev.event] || handlers[ev.event];
                    if (!h) {
                        fail('unhandled event ' + ev.event);
                        return;
                    }
                    try {
                        h(ev.payload);
                    } catch (e) {
                        fail('handler of ' + ev.event + ' threw ' + e);
                    }
                };
                ws.onclose = function () {
                    wsUp = false;
                    if (!harness.closing) {
                        fail('websocket closed by the server');
                    }
                };
                return url;
            }

            function checkMap(map, caller) {
                if (!isObject(map) || !Object.keys(map).length) {
                    fail('WSS.' + caller + '(): no event handlers');
                    return false;
                }
                return true;
            }

            function bindHandlers(map) {
                if (!checkMap(map, 'bindHandlers')) {
                    return;
                }
                Object.keys(map).forEach(function (type) {
                    if (!isF(map[type])) {
                        fail(type + ' handler not a function');
                    } else if (handlers[type] || builtin[type]) {
                        fail('duplicate binding of ' + type);
                    } else {
                        handlers[type] = map[type];
                    }
                });
            }

            function unbindHandlers(map) {
                if (!checkMap(map, 'unbindHandlers')) {
                    return;
                }
                Object.keys(map).forEach(function (type) {
                    if (!handlers[type]) {
                        fail('unbinding ' + type + ', which is not bound');
                    }
                    delete handlers[type];
                });
            }

            function sendEvent(type, payload) {
                if (typeof type !== 'string' || !type) {
                    fail('sendEvent without an event type');
                    return;
                }
                if (payload !== undefined && !isObject(payload)) {
                    fail('sendEvent(' + type + '): payload is not an object');
                    return;
                }
                var ev = { event: type, payload: payload || {} };
                if (wsUp) {
                    send(ev);
                } else {
                    pending.push(ev);
                }
            }

            return {
                createWebSocket: createWebSocket,
                bindHandlers: bindHandlers,
                unbindHandlers: unbindHandlers,
                sendEvent: sendEvent,
                isConnected: function () {
                    return wsUp;
                }
            };
        }])

        .factory('TableBuilderService', ['$interval', 'WebSocketService', function ($interval, wss) {
            var refreshInterval = 2000,
                options = ['scope', 'tag', 'selCb', 'respCb', 'query', 'idKey', 'sortParams'],
                // ONOS's LoadingService: one flag for the whole page, set by any
                // table's request, cleared by any table's answer
                waiting = false;

            function buildTable(o) {
                Object.keys(o).forEach(function (k) {
                    if (options.indexOf(k) < 0) {
                        fail('buildTable: unknown option ' + k);
                    }
                });
                if (!o.scope || !isF(o.scope.$on)) {
                    fail('buildTable: no scope');
                    return;
                }
                if (typeof o.tag !== 'string' || !o.tag) {
                    fail('buildTable: no tag');
                    return;
                }
                var handlers = {},
                    root = o.tag + 's',
                    req = o.tag + 'DataRequest',
                    resp = o.tag + 'DataResponse',
                    onSel = isF(o.selCb),
                    onResp = isF(o.respCb),
                    idKey = o.idKey || 'id',
                    refresh;

                o.scope.tableData = [];
                o.scope.changedData = [];
                o.scope.sortParams = o.sortParams || {};
                o.scope.autoRefresh = true;

                handlers[resp] = function (data) {
                    waiting = false;
                    if (!Array.isArray(data[root])) {
                        fail(resp + ' without ' + root);
                        return;
                    }
                    o.scope.tableData = data[root];
                    o.scope.annots = data.annots;
                    if (onResp) {
                        onResp();
                    }
                    o.scope.$apply();
                };
                wss.bindHandlers(handlers);

                function sortCb(params) {
                    var p = angular.extend({}, params, o.query);
                    if (wss.isConnected()) {
                        wss.sendEvent(req, p);
                        waiting = true;
                    }
                }
                o.scope.sortCallback = sortCb;

                o.scope.selectCallback = function ($event, row) {
                    var id = row[idKey];
                    o.scope.selId = o.scope.selId === id ? null : id;
                    if (onSel) {
                        onSel($event, row);
                    }
                };

                function start() {
                    refresh = $interval(function () {
                        if (!waiting) {
                            sortCb(o.scope.sortParams);
                        }
                    }, refreshInterval);
                }

                function stop() {
                    if (refresh) {
                        $interval.cancel(refresh);
                        refresh = null;
                    }
                }

                o.scope.toggleRefresh = function () {
                    o.scope.autoRefresh = !o.scope.autoRefresh;
                    if (o.scope.autoRefresh) {
                        start();
                    } else {
                        stop();
                    }
                };

                o.scope.$on('$destroy', function () {
                    wss.unbindHandlers(handlers);
                    stop();
                });

                sortCb(o.scope.sortParams);
                start();
            }

            return { buildTable: buildTable };
        }])

        .factory('FlashService', ['$timeout', function ($timeout) {
            var shown;

            function flash(text) {
                if (typeof text !== 'string') {
                    fail('flash: text is not a string');
                    return;
                }
                var el = document.getElementById('flash');
                el.textContent = text;
                el.style.display = 'block';
                harness.flashed = text;
                if (shown) {
                    $timeout.cancel(shown);
                }
                shown = $timeout(function () {
                    el.style.display = 'none';
                }, 1200);
            }

            return { flash: flash };
        }]);
}());
