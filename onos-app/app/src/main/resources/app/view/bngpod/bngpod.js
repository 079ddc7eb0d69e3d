/*
 ONOS GUI -- BNG Pod view (legacy GUI; the application org.bngpod.app).

 The pod's DP instances, line groups and sessions, each a table of ONOS's
 TableBuilderService, and the operator's actions (instance down or up,
 re-balance), each confirmed before it is sent. Only the instance table
 refreshes on its own (every 2 s): TableBuilderService skips a table's
 refresh while any table's request is outstanding (ONOS's LoadingService
 is one for the page), so three tables ticking together would starve two
 of them. The other two ask again whenever the instance table's answer
 arrives, and all three right after an action. The answers come from org.bngpod.app.gui.BngPodViewMessageHandler,
 which checks the user's roles on every request: a viewer sees no buttons,
 and an action sent anyway is refused there.

 GUI services used: WebSocketService (bindHandlers, unbindHandlers,
 sendEvent), TableBuilderService (buildTable), FlashService (flash).
 */

(function () {
    'use strict';

    var actionReq = 'bngpodActionRequest',
        actionResp = 'bngpodActionResponse',
        refreshEvent = 'bngpodRefresh',         // every table: after an action
        followEvent = 'bngpodRefreshFollowers', // the tables that follow the instance table
        ticked = 'bngpodInstancesAnswered';

    // what the confirmation asks, per action
    function question(action, row) {
        switch (action) {
            case 'instanceDown':
                return 'Declare ' + row.name + ' dead? Its line groups fail over to other instances.';
            case 'instanceUp':
                return 'Declare ' + row.name + ' alive? It may take line groups again; nothing moves back.';
            default:
                return 'Re-balance? Line groups over capacity, unplaced or on dead instances move.';
        }
    }

    // a table that also refreshes at once after an action; a follower has no
    // timer of its own and refreshes when the instance table answered
    function table(tbs, $scope, tag, query, follower) {
        var o = { scope: $scope, tag: tag, query: query };

        function refresh() {
            $scope.sortCallback($scope.sortParams);
        }
        if (!follower) {
            o.respCb = function () {
                $scope.$emit(ticked);
            };
        }
        tbs.buildTable(o);
        if (follower) {
            $scope.toggleRefresh();
            $scope.$on(followEvent, refresh);
        }
        $scope.$on(refreshEvent, refresh);
    }

    angular.module('ovBngpod', [])
        .controller('OvBngpodCtrl',
            ['$log', '$scope', 'WebSocketService', 'FlashService',

            function ($log, $scope, wss, flash) {
                var handlers = {};

                $scope.pending = null;      // the action waiting for confirmation
                $scope.lastResult = null;   // ONOS's answer to the last action

                handlers[actionResp] = function (data) {
                    $scope.lastResult = data;
                    flash.flash((data.ok ? '' : 'Refused: ') + data.message);
                    $scope.$apply();
                    $scope.$broadcast(refreshEvent);
                };
                wss.bindHandlers(handlers);

                $scope.ask = function (action, row) {
                    $scope.pending = {
                        action: action,
                        id: row ? parseInt(row.id, 10) : null,
                        text: question(action, row)
                    };
                };

                $scope.confirm = function () {
                    var p = $scope.pending,
                        payload = { action: p.action };
                    if (p.id !== null) {
                        payload.id = p.id;
                    }
                    $scope.pending = null;
                    wss.sendEvent(actionReq, payload);
                };

                $scope.cancel = function () {
                    $scope.pending = null;
                };

                $scope.$on(ticked, function () {
                    $scope.$broadcast(followEvent);
                });

                $scope.$on('$destroy', function () {
                    wss.unbindHandlers(handlers);
                });

                $log.log('OvBngpodCtrl has been created');
            }])

        .controller('OvBngpodInstanceCtrl', ['$scope', 'TableBuilderService',
            function ($scope, tbs) {
                table(tbs, $scope, 'bngpodInstance');
            }])

        .controller('OvBngpodGroupCtrl', ['$scope', 'TableBuilderService',
            function ($scope, tbs) {
                table(tbs, $scope, 'bngpodGroup', undefined, true);
            }])

        .controller('OvBngpodSessionCtrl', ['$scope', 'TableBuilderService',
            function ($scope, tbs) {
                // buildTable adds the query to every request, refreshes included
                var query = { search: '' };

                $scope.search = { text: '' };
                table(tbs, $scope, 'bngpodSession', query, true);

                $scope.doSearch = function () {
                    query.search = $scope.search.text || '';
                    $scope.sortCallback($scope.sortParams);
                };
            }]);
}());
