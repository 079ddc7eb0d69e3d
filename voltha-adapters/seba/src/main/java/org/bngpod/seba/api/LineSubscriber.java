package org.bngpod.seba.api;

import org.onosproject.net.ConnectPoint;

import java.util.Objects;
import java.util.Optional;

/**
 * One SADIS service of a UNI, mapped onto the pod: the access line (access
 * port of the switch, S-tag, C-tag) its frames arrive on, the line group that
 * takes it, the subscriber's identity and the service's rates.
 */
public final class LineSubscriber {

    private final String accessPort;
    private final int stag;
    private final int ctag;
    private final String lineGroup;
    private final ConnectPoint uni;
    private final String uniName;
    private final String serviceName;
    private final String circuitId;
    private final String remoteId;
    private final String nasPortId;
    private final Rates down;
    private final Rates up;

    /**
     * Creates a mapped subscriber service.
     *
     * @param accessPort  access port of the switch the OLT's NNI is cabled to
     * @param stag        the service's S-tag (ponSTag)
     * @param ctag        the service's C-tag (ponCTag)
     * @param lineGroup   the line group whose line takes (accessPort, stag, ctag)
     * @param uni         the OLT UNI's connect point
     * @param uniName     the UNI's port name, its SADIS id (e.g. BBSM00000001-1)
     * @param serviceName the service's name in SADIS ("" when absent)
     * @param circuitId   SADIS circuitId ("" when absent)
     * @param remoteId    SADIS remoteId ("" when absent)
     * @param nasPortId   SADIS nasPortId ("" when absent)
     * @param down        downstream rates (shaping), or null when SADIS gives none
     * @param up          upstream rates (policing), or null when SADIS gives none
     */
    public LineSubscriber(String accessPort, int stag, int ctag, String lineGroup, ConnectPoint uni,
                          String uniName, String serviceName, String circuitId, String remoteId,
                          String nasPortId, Rates down, Rates up) {
        this.accessPort = Objects.requireNonNull(accessPort);
        this.stag = stag;
        this.ctag = ctag;
        this.lineGroup = Objects.requireNonNull(lineGroup);
        this.uni = Objects.requireNonNull(uni);
        this.uniName = Objects.requireNonNull(uniName);
        this.serviceName = Objects.requireNonNull(serviceName);
        this.circuitId = Objects.requireNonNull(circuitId);
        this.remoteId = Objects.requireNonNull(remoteId);
        this.nasPortId = Objects.requireNonNull(nasPortId);
        this.down = down;
        this.up = up;
    }

    /**
     * Returns the access port's name.
     *
     * @return the access port's name
     */
    public String accessPort() {
        return accessPort;
    }

    /**
     * Returns the S-tag.
     *
     * @return the S-tag
     */
    public int stag() {
        return stag;
    }

    /**
     * Returns the C-tag.
     *
     * @return the C-tag
     */
    public int ctag() {
        return ctag;
    }

    /**
     * Returns the line group's name.
     *
     * @return the line group's name
     */
    public String lineGroup() {
        return lineGroup;
    }

    /**
     * Returns the OLT UNI's connect point.
     *
     * @return the OLT UNI's connect point
     */
    public ConnectPoint uni() {
        return uni;
    }

    /**
     * Returns the UNI's port name (SADIS id).
     *
     * @return the UNI's port name (SADIS id)
     */
    public String uniName() {
        return uniName;
    }

    /**
     * Returns the ONU's serial number: the UNI's name before its last '-'
     * (BBSM00000001 of BBSM00000001-1), as SEBA names UNIs.
     *
     * @return serial number, or the whole name without a '-'
     */
    public String onuSerial() {
        int dash = uniName.lastIndexOf('-');
        return dash > 0 ? uniName.substring(0, dash) : uniName;
    }

    /**
     * Returns the service's name, "" when absent.
     *
     * @return the service's name, "" when absent
     */
    public String serviceName() {
        return serviceName;
    }

    /**
     * Returns SADIS circuitId, "" when absent.
     *
     * @return SADIS circuitId, "" when absent
     */
    public String circuitId() {
        return circuitId;
    }

    /**
     * Returns SADIS remoteId, "" when absent.
     *
     * @return SADIS remoteId, "" when absent
     */
    public String remoteId() {
        return remoteId;
    }

    /**
     * Returns SADIS nasPortId, "" when absent.
     *
     * @return SADIS nasPortId, "" when absent
     */
    public String nasPortId() {
        return nasPortId;
    }

    /**
     * Returns downstream rates, empty when the service names no known profile.
     *
     * @return downstream rates, empty when the service names no known profile
     */
    public Optional<Rates> down() {
        return Optional.ofNullable(down);
    }

    /**
     * Returns upstream rates, empty when the service names no known profile.
     *
     * @return upstream rates, empty when the service names no known profile
     */
    public Optional<Rates> up() {
        return Optional.ofNullable(up);
    }

    /**
     * Returns the line's key, "accessPort/stag/ctag".
     *
     * @return key
     */
    public String line() {
        return key(accessPort, stag, ctag);
    }

    /**
     * Returns the key of a line.
     *
     * @param accessPort access port name
     * @param stag       S-tag
     * @param ctag       C-tag
     * @return "accessPort/stag/ctag"
     */
    public static String key(String accessPort, int stag, int ctag) {
        return accessPort + "/" + stag + "/" + ctag;
    }

    @Override
    public boolean equals(Object obj) {
        if (!(obj instanceof LineSubscriber)) {
            return false;
        }
        LineSubscriber o = (LineSubscriber) obj;
        return accessPort.equals(o.accessPort) && stag == o.stag && ctag == o.ctag
                && lineGroup.equals(o.lineGroup) && uni.equals(o.uni) && uniName.equals(o.uniName)
                && serviceName.equals(o.serviceName) && circuitId.equals(o.circuitId)
                && remoteId.equals(o.remoteId) && nasPortId.equals(o.nasPortId)
                && Objects.equals(down, o.down) && Objects.equals(up, o.up);
    }

    @Override
    public int hashCode() {
        return Objects.hash(accessPort, stag, ctag, uniName, serviceName);
    }

    @Override
    public String toString() {
        return line() + "{" + lineGroup + ", uni=" + uniName + " " + uni + ", service=" + serviceName
                + ", circuitId=" + circuitId + ", remoteId=" + remoteId + ", nasPortId=" + nasPortId
                + ", down=" + down + ", up=" + up + "}";
    }
}
